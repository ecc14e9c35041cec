import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/reference/dataset/database.ts';
import {
  type BenchContext,
  fmt,
  pidOf,
  row,
  signIn,
  startUnlimitedReferenceAndBff,
  statusMb,
  stopAll,
  verdict,
} from '../support.ts';

/*
 * A review finishing unattended (issue 29): the BFF on the embedded database (its key encryption secret generated
 * beside it), against the unlimited reference run on its own (so the demo keys are ordinary keys the BFF may keep).
 * One key signs in, turns "Work while I'm signed out" on, uploads BENCH_UNATTENDED_ROWS distinct addresses
 * (default 100,000) as the SPA does, and signs out: nobody is signed in while the rows are worked. Progress is read
 * from the BFF's database file (no session to ask with), the BFF's RSS from /proc every second.
 */
export async function benchUnattended(ctx: BenchContext) {
  const want = Number(process.env.BENCH_UNATTENDED_ROWS ?? 100_000);
  const addresses = await distinctAddresses(ctx, want);
  console.log(
    `\nUnattended review — ${addresses.length.toLocaleString('en-US')} rows worked with nobody signed in (key custody on), unlimited reference`,
  );
  const dbDir = join(ctx.dir, 'unattended-db');
  const bffUrl = await startUnlimitedReferenceAndBff(ctx, { DATABASE_DIR: dbDir });
  try {
    const cookie = await signIn(bffUrl);
    const headers = { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens', Cookie: cookie };
    const custody = await fetch(`${bffUrl}/api/custody`, { method: 'PUT', headers });
    if (!custody.ok) throw new Error(`custody not turned on: ${custody.status} ${await custody.text()}`);
    const id = await upload(bffUrl, headers, addresses);
    const out = await fetch(`${bffUrl}/api/session`, { method: 'DELETE', headers });
    const stillIn = await fetch(`${bffUrl}/api/reviews/${id}`, { headers });
    if (!out.ok || stillIn.status !== 401)
      throw new Error(`not signed out: ${out.status}, then ${stillIn.status}`);
    const signedOutAt = performance.now();

    const db = new Database(join(dbDir, 'proplens.db'), { readonly: true, fileMustExist: true });
    const progress = db.prepare(
      'SELECT total, done, finished_at FROM review_runs WHERE review_id = ? AND run = 1',
    );
    const pid = pidOf.get(bffUrl);
    let peakSampledMb = 0;
    let doneAtSignOut = -1;
    let run: { total: number; done: number; finished_at: number | null } | undefined;
    // Bounded: 100,000 rows at 20 rows/s would take 83 minutes; give up after 90.
    const giveUpAt = signedOutAt + 90 * 60_000;
    while (performance.now() < giveUpAt) {
      run = progress.get(id) as typeof run;
      if (doneAtSignOut < 0) doneAtSignOut = run?.done ?? 0;
      peakSampledMb = Math.max(peakSampledMb, statusMb(pid, 'VmRSS') ?? 0);
      if (run?.finished_at != null) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const workS = (performance.now() - signedOutAt) / 1000;
    const unattended = db
      .prepare("SELECT count(*) AS n FROM audit_entries WHERE session_ref = 'unattended'")
      .get() as { n: number };
    const sessions = await fetch(`${bffUrl}/api/reviews/${id}`, { headers });
    db.close();
    const peakMb = statusMb(pid, 'VmHWM');
    const done = run?.done ?? 0;
    const unattendedRows = done - Math.max(doneAtSignOut, 0);
    row(
      'rows finished with nobody signed in',
      `${unattendedRows} / ${addresses.length}`,
      `${addresses.length}`,
      `${doneAtSignOut} done at sign-out; ${unattended.n} lookups audited as unattended; the old cookie answers ${sessions.status}; ${verdict(done === addresses.length && run?.finished_at != null)}`,
    );
    row(
      'rows/s unattended (uncached)',
      `${fmt(unattendedRows / workS, 0)} /s`,
      '',
      `${fmt(workS, 1)} s from sign-out to the run's end`,
    );
    row(
      "BFF's peak RSS (VmHWM), whole section",
      peakMb === null ? 'n/a' : `${fmt(peakMb, 0)} MB`,
      '<= 400 MB',
      peakMb === null
        ? ''
        : `${fmt(peakMb / 400)}x of 400 MB (sampled VmRSS peak ${fmt(peakSampledMb, 0)} MB); ${verdict(peakMb <= 400)}`,
    );
  } finally {
    stopAll();
  }
}

/** Distinct addresses of single properties, spread over the dataset, the same every run. */
async function distinctAddresses(ctx: BenchContext, want: number): Promise<string[]> {
  const { db } = await openDatabase({ records: ctx.records, seed: ctx.seed, dir: ctx.dir });
  try {
    return (
      db
        .prepare('SELECT DISTINCT address FROM property WHERE unit IS NULL LIMIT ?')
        .pluck()
        .all(Math.ceil(want * 1.5)) as string[]
    )
      .filter((_, i) => i % 3 !== 2)
      .slice(0, want);
  } finally {
    db.close();
  }
}

/** The review made and its rows sent in chunks of 2,000, as the SPA sends them; its id. */
async function upload(bffUrl: string, headers: Record<string, string>, addresses: string[]): Promise<string> {
  const created = await fetch(`${bffUrl}/api/reviews`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      clientToken: `bench-${Math.random().toString(36).slice(2, 14)}`,
      name: 'Unattended',
      kind: 'paste',
      columns: [],
      totalRows: addresses.length,
    }),
  });
  if (!created.ok) throw new Error(`review not created: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const size = 2_000;
  for (let i = 0; i * size < addresses.length; i++) {
    const rows = addresses.slice(i * size, (i + 1) * size).map((address) => ({ address }));
    const res = await fetch(`${bffUrl}/api/reviews/${id}/chunks`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ index: i, firstRow: i * size, rows, last: (i + 1) * size >= addresses.length }),
    });
    if (!res.ok) throw new Error(`chunk ${i}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return id;
}
