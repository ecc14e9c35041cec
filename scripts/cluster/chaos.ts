import { openDatabase } from '../../src/bff/db/database.ts';
import { MAX_CHUNK_ROWS } from '../../src/contract/index.ts';

/**
 * `npm run cluster -- --chaos` (scripts/cluster.ts starts the cluster, then this): a review of CHAOS_ROWS rows
 * uploaded through the entry point, one replica killed with SIGKILL once a third are answered and started
 * again, then what PostgreSQL holds checked: every row answered once, every answer audited once.
 */

export interface ChaosReplicas {
  ports: number[];
  kill(port: number): boolean;
  restart(port: number): Promise<void>;
}

/** Where the replicas' database is, and whether their upstream is the embedded reference. */
export interface ChaosServices {
  databaseUrl: string;
  embedded: boolean;
}

type Summary = { status: string; runs: { counts: Record<string, number> }[] };

/** The kill, as it happened: after how many rows done, when, and how long the restart took. */
interface Kill {
  atDone: number | null;
  time: number;
  restartMs: number;
}

/** The --chaos run (see the file's header): true when every check held. */
export async function runChaos(
  entryUrl: string,
  services: ChaosServices,
  replicas: ChaosReplicas,
): Promise<boolean> {
  const rows = readWhole('CHAOS_ROWS', 20_000, 1, 100_000);
  const deadline = Date.now() + readWhole('CHAOS_TIMEOUT_S', 600, 10, 86_400) * 1000;
  if (!services.embedded) throw new Error('--chaos runs on the embedded reference: unset PROPERTY_API_URL.');
  const entry = new EntryPoint(entryUrl, deadline);
  await entry.signIn();
  const t0 = performance.now();
  const reviewId = await uploadReview(entry, rows);
  const { summary, kill } = await followAndKill(entry, reviewId, rows, deadline, replicas);
  const seconds = (performance.now() - t0) / 1000;
  const figures = {
    rows,
    replicas: replicas.ports.length,
    killedAtDone: kill.atDone,
    restartSeconds: Number((kill.restartMs / 1000).toFixed(1)),
    seconds: Number(seconds.toFixed(1)),
    rowsPerSecond: Math.round(rows / seconds),
    ...(await whatWasKept(services.databaseUrl, reviewId, kill.time)),
  };
  const failures = [
    summary.status === 'done' ? null : `the review is ${summary.status}, not done`,
    kill.atDone === null ? 'no replica was killed (the review ended first)' : null,
    figures.results === rows && figures.distinctRows === rows
      ? null
      : `${figures.results} results for ${rows} rows`,
    figures.answered === rows ? null : `${rows - figures.answered} rows not answered`,
    figures.answersAuditedOnce === rows
      ? null
      : `${rows - figures.answersAuditedOnce} answers not audited exactly once (${figures.answersNotAudited} none, ${figures.answersAuditedTwice} twice, ${figures.answersAuditedTwiceAroundKill} of them around the kill)`,
    figures.auditEntriesOfNoRow === 0
      ? null
      : `${figures.auditEntriesOfNoRow} entries name rows the review has not`,
  ].filter((f): f is string => f !== null);
  console.log(
    [
      '',
      `Chaos: ${rows.toLocaleString('en-US')} rows on ${figures.replicas} replicas, one killed (SIGKILL) at ${kill.atDone?.toLocaleString('en-US')} done and restarted in ${figures.restartSeconds} s`,
      `  review done in ${figures.seconds} s (${figures.rowsPerSecond} rows/s, upload included)`,
      `  answered exactly once: ${figures.answered} of ${rows} (${figures.results} results)`,
      `  answers audited exactly once: ${figures.answersAuditedOnce} of ${rows} (${figures.answersNotAudited} none, ${figures.answersAuditedTwice} twice: ${figures.answersAuditedTwiceAroundKill} around the kill)`,
      `  audit entries: ${figures.auditEntries} (${figures.failedAttemptsAudited} of attempts that failed and were tried again)`,
      failures.length === 0 ? '  every check held' : `  FAILED: ${failures.join('; ')}`,
      '',
    ].join('\n'),
  );
  console.log(`CHAOS ${JSON.stringify({ ...figures, failures })}`);
  return failures.length === 0;
}

/** The cluster's entry point, as a browser reaches it: signed in, and asking again while a replica is down. */
class EntryPoint {
  #cookie = '';

  constructor(
    private readonly url: string,
    private readonly deadline: number,
  ) {}

  async signIn() {
    const res = await this.call('/api/session', { method: 'POST', body: { apiKey: 'pi_demo_enterprise' } });
    this.#cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    await this.json(res);
  }

  async call(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    for (;;) {
      try {
        const res = await fetch(`${this.url}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            'X-Requested-With': 'proplens',
            ...(this.#cookie ? { Cookie: this.#cookie } : {}),
            ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        // The replica it reached was killed under it (502), or was starting: asked again, as a browser would.
        if (res.status === 502 || res.status === 503) throw new Error(`HTTP ${res.status}`);
        return res;
      } catch (err) {
        if (Date.now() > this.deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  async json(res: Response): Promise<Record<string, unknown>> {
    if (!res.ok) throw new Error(`${res.url}: HTTP ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  }
}

/** Creates the review and puts its rows in chunks, as the SPA does; gives the review's id. */
async function uploadReview(entry: EntryPoint, rows: number): Promise<string> {
  const review = (await entry.json(
    await entry.call('/api/reviews', {
      method: 'POST',
      body: {
        clientToken: `chaos-${Date.now()}`,
        name: 'Chaos',
        kind: 'paste',
        columns: [],
        totalRows: rows,
      },
    }),
  )) as { id: string };
  for (let first = 0, index = 0; first < rows; first += MAX_CHUNK_ROWS, index++) {
    const count = Math.min(MAX_CHUNK_ROWS, rows - first);
    const chunk = Array.from({ length: count }, (_, i) => ({ address: chaosAddress(first + i) }));
    await entry.json(
      await entry.call(`/api/reviews/${review.id}/chunks`, {
        method: 'PUT',
        body: { index, firstRow: first, rows: chunk, last: first + count >= rows },
      }),
    );
  }
  console.log(`Uploaded ${rows.toLocaleString('en-US')} rows (review ${review.id}).`);
  return review.id;
}

/** Follows the review until it is done (or the deadline), killing the last replica once a third is done. */
async function followAndKill(
  entry: EntryPoint,
  reviewId: string,
  rows: number,
  deadline: number,
  replicas: ChaosReplicas,
): Promise<{ summary: Summary; kill: Kill }> {
  const victim = replicas.ports[replicas.ports.length - 1] as number;
  const kill: Kill = { atDone: null, time: 0, restartMs: 0 };
  for (;;) {
    const summary = (await entry.json(await entry.call(`/api/reviews/${reviewId}`))) as Summary;
    const done = summary.runs[0]?.counts.done ?? 0;
    if (kill.atDone === null && done >= rows / 3) {
      kill.atDone = done;
      kill.time = Date.now();
      replicas.kill(victim);
      console.log(
        `Killed the replica on port ${victim} with SIGKILL at ${done.toLocaleString('en-US')} rows done.`,
      );
      const t = performance.now();
      await replicas.restart(victim);
      kill.restartMs = performance.now() - t;
      console.log(`Restarted it in ${(kill.restartMs / 1000).toFixed(1)} s.`);
    }
    if (summary.status === 'done') return { summary, kill };
    if (Date.now() > deadline) {
      console.error(`Not done in time: ${done} of ${rows} rows.`);
      return { summary, kill };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * What the database holds for the review, read directly: the API's counts are what is checked, not what
 * checks. Rows with a result and an outcome, and the audit entries of their answers.
 */
async function whatWasKept(databaseUrl: string, reviewId: string, killedTime: number) {
  const database = await openDatabase({ url: databaseUrl, dir: '' });
  try {
    const results = await database.db
      .selectFrom('review_results')
      .select(['row_index', 'state', 'outcome'])
      .where('review_id', '=', reviewId)
      .execute();
    const audited = await database.db
      .selectFrom('audit_entries')
      .select(['row_index', 'outcome', 'at'])
      .where('review_id', '=', reviewId)
      .where('kind', '=', 'review_row')
      .orderBy('id')
      .execute();
    const perRow = new Map<number, number>();
    for (const a of audited) perRow.set(Number(a.row_index), (perRow.get(Number(a.row_index)) ?? 0) + 1);
    const indexes = new Set(results.map((r) => Number(r.row_index)));
    // Each row's answer has one entry; an attempt that failed and was tried again has its own (evidence of a
    // lookup made), counted apart. A second entry of the answer is a lookup made twice: its result was lost
    // after its entry was committed (the replica killed between the two, or the result's write failed).
    const outcomeOf = new Map(results.map((r) => [Number(r.row_index), r.outcome]));
    const answerEntries = new Map<number, typeof audited>();
    let failedAttempts = 0;
    for (const a of audited) {
      const i = Number(a.row_index);
      if (a.outcome !== outcomeOf.get(i)) {
        failedAttempts++;
        continue;
      }
      answerEntries.set(i, [...(answerEntries.get(i) ?? []), a]);
    }
    const twice = [...answerEntries].filter(([, e]) => e.length > 1);
    const aroundKill = twice.filter(([, e]) => e.some((a) => Math.abs(Number(a.at) - killedTime) < 15_000));
    for (const [i, entries] of twice.slice(0, 5)) {
      const when = entries.map((a) => {
        const ms = Number(a.at) - killedTime;
        return `${a.outcome} at kill${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(1)} s`;
      });
      console.log(`  row ${i} audited twice: ${when.join(', ')}`);
    }
    return {
      results: results.length,
      distinctRows: indexes.size,
      answered: results.filter((r) => r.state === 'done' && r.outcome !== null).length,
      auditEntries: audited.length,
      answersAuditedOnce: [...indexes].filter((i) => answerEntries.get(i)?.length === 1).length,
      answersNotAudited: [...indexes].filter((i) => !answerEntries.has(i)).length,
      answersAuditedTwice: twice.length,
      answersAuditedTwiceAroundKill: aroundKill.length,
      failedAttemptsAudited: failedAttempts,
      auditEntriesOfNoRow: [...perRow.keys()].filter((i) => !indexes.has(i)).length,
    };
  } finally {
    await database.close();
  }
}

/** A different address for each row, one the reference has no record of: every row is asked of it. */
function chaosAddress(i: number): string {
  return `${i + 1} Chaos Test Road, Springfield, IL 62701`;
}

function readWhole(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${text}"`);
  return n;
}
