import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import { type Database, openDatabase } from './database.ts';

/*
 * PostgreSQL restarting, failing over or cutting connections while queries run is an outage to ride out (503s,
 * then service again), never the end of the process: a checked-out client's error, unheard, would crash it.
 */
const available = postgresAvailable();
let server: PostgresServer | undefined;
let database: Database | undefined;
beforeAll(async () => {
  if (!available) return;
  server = await PostgresServer.start();
  database = await openDatabase({ url: server.url, dir: '' });
}, 60_000);
afterAll(async () => {
  await database?.close();
  await server?.destroy();
});

describe.skipIf(!available)('PostgreSQL cutting connections mid-query', () => {
  it('fails the queries in flight, keeps the process alive, and answers again on new connections', async () => {
    const db = (database as Database).db;
    const inFlight = Array.from({ length: 4 }, () =>
      db.transaction().execute(async (trx) => {
        await sql`select pg_sleep(5)`.execute(trx);
      }),
    );
    // Heard from now on: if the wait below fails, their rejections are not left unhandled (a failed run's noise).
    const settling = Promise.allSettled(inFlight);
    // A separate connection of the test's own cuts every other one, as a restart does.
    const killer = await openDatabase({ url: (server as PostgresServer).url, dir: '' });
    try {
      await expect
        .poll(
          async () =>
            (
              await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where query like 'select pg_sleep%' and pid <> pg_backend_pid()`.execute(killer.db)
            ).rows[0]?.n,
          { timeout: 10_000 },
        )
        .toBe(4);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`.execute(killer.db);
    } finally {
      await killer.close();
    }
    const settled = await settling;
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    // Had a client's error gone unheard, the process would have crashed before this line.
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]?.one).toBe(1);
    expect(await (database as Database).ping()).toBe(true);
  }, 30_000);
});
