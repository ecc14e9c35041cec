import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from './test-support/postgres-process.ts';
import { redisServerAvailable } from './test-support/test-redis.ts';

/*
 * `npm run cluster -- --chaos` on 1,000 rows (scripts/cluster.ts): three replicas on PostgreSQL and Redis
 * behind the round-robin entry point, one killed with SIGKILL once a third of the rows are answered and started
 * again; the script reads the database when the review is done and prints its figures, read here.
 */
const ROWS = 1_000;

interface ChaosFigures {
  rows: number;
  killedAtDone: number | null;
  seconds: number;
  results: number;
  distinctRows: number;
  answered: number;
  auditEntries: number;
  answersAuditedOnce: number;
  answersNotAudited: number;
  answersAuditedTwice: number;
  answersAuditedTwiceAroundKill: number;
  failedAttemptsAudited: number;
  auditEntriesOfNoRow: number;
  failures: string[];
}

const isFree = (port: number) =>
  new Promise<boolean>((answer) => {
    const s = createServer();
    s.once('error', () => answer(false));
    s.listen(port, '127.0.0.1', () => s.close(() => answer(true)));
  });

/**
 * The entry point's port, with the replicas' three after it: all four free, below the range the kernel hands
 * out to outgoing connections (where a port free now may be taken by the time a replica listens).
 */
async function fourFreePorts(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    let free = true;
    for (let i = 0; i < 4 && free; i++) free = await isFree(base + i);
    if (free) return base;
  }
}

async function runChaos(): Promise<{ figures: ChaosFigures; output: string }> {
  const port = await fourFreePorts();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--chaos'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CHAOS_ROWS: String(ROWS),
      CHAOS_TIMEOUT_S: '150',
      SKIP_WEB_BUILD: '1',
      // Nothing of the developer's own setup: the cluster starts its own of each.
      REDIS_URL: '',
      DATABASE_URL: '',
      PROPERTY_API_URL: '',
      REPLICAS: '3',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  await new Promise((exited) => child.once('exit', exited));
  const line = /^CHAOS (.*)$/m.exec(output)?.[1];
  if (!line) throw new Error(`no figures from the chaos run:\n${output.slice(-4000)}`);
  return { figures: JSON.parse(line) as ChaosFigures, output };
}

describe.skipIf(!postgresAvailable() || !redisServerAvailable())(
  'a replica killed with SIGKILL mid-review',
  () => {
    let run: Awaited<ReturnType<typeof runChaos>>;
    beforeAll(async () => {
      run = await runChaos();
      // The figures, for the log of a CI run.
      console.log(
        run.output
          .split('\n')
          .filter((l) => /^(Chaos| {2}|Killed|Restarted)/.test(l))
          .join('\n'),
      );
    }, 240_000);

    it('answers every row exactly once, and audits every answer', () => {
      const f = run.figures;
      expect(f.killedAtDone).toBeGreaterThanOrEqual(ROWS / 3);
      expect(f.killedAtDone).toBeLessThan(ROWS);
      expect({ results: f.results, distinct: f.distinctRows, answered: f.answered }).toEqual({
        results: ROWS,
        distinct: ROWS,
        answered: ROWS,
      });
      expect(f.answersNotAudited).toBe(0);
      expect(f.auditEntriesOfNoRow).toBe(0);
      // Asked twice: only rows whose answer was lost after its entry was committed. Around the kill that is at most
      // the dead replica's rows in hand (REVIEW_CONCURRENCY, 32).
      expect(f.answersAuditedTwiceAroundKill).toBeLessThanOrEqual(32);
    });

    // A row's answer and its audit entry are written in one transaction (the completion's, ADR 010 addendum): a
    // replica killed before it commits has kept neither, and the row asked again is audited once. (Before, the
    // entry was committed first and the answer in a transaction of its own: 14 to 25 of 1,000 audited twice.)
    it('audits every answer exactly once (answersAuditedTwice 0)', () => {
      const f = run.figures;
      expect({ once: f.answersAuditedOnce, twice: f.answersAuditedTwice, none: f.answersNotAudited }).toEqual(
        {
          once: ROWS,
          twice: 0,
          none: 0,
        },
      );
      expect(f.failures).toEqual([]);
    });
  },
);
