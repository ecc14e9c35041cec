import { generateKeyPairSync } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/database.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { entryHash, insertChained } from '../stores/audit/chain.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { PostgresServer, postgresAvailable } from '../test-support/postgres-process.ts';
import { Checkpoints, signCheckpoint } from './checkpoints.ts';
import { loadSigningKey, thumbprint } from './signing-key.ts';
import { type TrailBroken, type TrustedKey, verifyTrail } from './verify-trail.ts';

/*
 * The audit chain as an auditor checks it (npm run audit:verify's core): intact after every insert path and after
 * retention; an entry changed, removed or inserted behind PropLens's back (SQL, as a database administrator would)
 * is named, with how; a checkpoint naming a trail that is not there any more fails.
 */

type Db = Kysely<DatabaseSchema>;

const backends = databaseBackends('audit-chain');

/** The keys the verifier trusts: the test's signing key, once it has one. */
let keys: TrustedKey[] = [];

const pem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Runs `plant` and the verifier in a transaction that is then undone: the trail is as before for the next. */
async function plantedThenVerified(
  db: Db,
  sqlite: BetterSqlite3.Database | undefined,
  plant: (trx: Db) => Promise<void>,
): Promise<TrailBroken> {
  let result: Awaited<ReturnType<typeof verifyTrail>> | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      await plant(trx);
      result = await verifyTrail(trx, { keys, sqlite, batch: 3 });
      throw new Error('undo');
    })
    .catch((err: Error) => {
      if (err.message !== 'undo') throw err;
    });
  expect(result?.ok).toBe(false);
  return result as TrailBroken;
}

const ids = async (db: Db) =>
  (await db.selectFrom('audit_entries').select(['id', 'at', 'hash']).orderBy('id').execute()).map((r) => ({
    id: Number(r.id),
    at: Number(r.at),
    hash: r.hash,
  }));

describe.each(backends)('the audit chain on $name', (backend) => {
  it('stays one chain whichever path appends, and an edited, a deleted or an inserted entry is named', async () => {
    const { db, sqlite } = backend.database;
    const prepared = new SqlAuditStore(db, sqlite);
    const kysely = new SqlAuditStore(db);
    const key = loadSigningKey(pem(), '');
    const checkpoints = new Checkpoints(db, key, () => 1_800_000_000_000);
    keys = await checkpoints.keys();
    const entry = (n: number) => auditEntry({ at: 1_700_000_000_000 + n, query: `${n} Chain St` });
    // A lone surrogate in what was asked: kept by either database as U+FFFD, hashed as kept.
    const lone = (n: number) => ({ ...entry(n), query: `${n} Chain St \ud800` });
    await prepared.append([lone(1), entry(2)]);
    await kysely.append([lone(3)]);
    // The reviews' path: inside the caller's transaction, beside what it writes.
    await db.transaction().execute((trx) => insertChained(trx, [entry(4), entry(5)]));
    // An id never given (a rolled-back append on PostgreSQL; AUTOINCREMENT's sequence on SQLite): a gap in the ids.
    await (backend.name === 'SQLite'
      ? sql`update sqlite_sequence set seq = seq + 5 where name = 'audit_entries'`
      : sql`select setval('audit_entries_id_seq', nextval('audit_entries_id_seq') + 5)`
    ).execute(db);
    await prepared.append([entry(6), entry(7)]);
    await checkpoints.checkpointNow();
    expect(await verifyTrail(db, { keys, sqlite, batch: 3 })).toMatchObject({
      ok: true,
      entries: 7,
      checkpoints: 1,
    });
    const trail = await ids(db);
    expect(trail[5]?.id).toBeGreaterThan((trail[4]?.id ?? 0) + 1);
    const [, second, third, , fifth, sixth, seventh] = trail as (typeof trail)[number][];
    if (!second || !third || !fifth || !sixth || !seventh) throw new Error('seven entries');

    const changed = await plantedThenVerified(db, sqlite, async (trx) => {
      await trx
        .updateTable('audit_entries')
        .set({ query: '3 Forged St' })
        .where('id', '=', third.id)
        .execute();
    });
    expect(changed).toMatchObject({ how: 'changed', id: third.id, at: third.at });

    const removed = await plantedThenVerified(db, sqlite, async (trx) => {
      await trx.deleteFrom('audit_entries').where('id', '=', third.id).execute();
    });
    expect(removed).toMatchObject({ how: 'removed', id: trail[3]?.id });

    // Inserted in the gap, chained after the entry before it with its hash made right: the entry after it fails.
    const forged = await plantedThenVerified(db, sqlite, async (trx) => {
      const row = { ...auditEntry({ at: fifth.at + 1, query: '5½ Forged St' }), id: fifth.id + 1 };
      const chained = { ...row, prev_hash: fifth.hash, search_text: null };
      await trx
        .insertInto('audit_entries')
        .values({ ...chained, hash: entryHash(chained) })
        .execute();
    });
    expect(forged).toMatchObject({ how: 'inserted', id: fifth.id + 1 });
    // And with a hash made up: the same entry named.
    const madeUp = await plantedThenVerified(db, sqlite, async (trx) => {
      const row = { ...auditEntry({ at: fifth.at + 1 }), id: fifth.id + 2, search_text: null };
      await trx
        .insertInto('audit_entries')
        .values({ ...row, prev_hash: second.hash, hash: 'f'.repeat(64) })
        .execute();
    });
    expect(madeUp).toMatchObject({ how: 'inserted', id: fifth.id + 2 });

    // The newest entry removed: the chain left is whole, but the checkpoint counts it.
    const truncated = await plantedThenVerified(db, sqlite, async (trx) => {
      await trx.deleteFrom('audit_entries').where('id', '=', seventh.id).execute();
    });
    expect(truncated).toMatchObject({ how: 'removed', id: seventh.id });
    // A checkpoint changed after it was signed.
    const resigned = await plantedThenVerified(db, sqlite, async (trx) => {
      await trx.updateTable('audit_checkpoints').set({ entries: 6, head_id: sixth.id }).execute();
    });
    expect(resigned).toMatchObject({ how: 'checkpoint' });
    // A database writer's own key among the evidence keys, and the chain rewritten and re-signed with it (F5).
    const attacker = generateKeyPairSync('ed25519');
    const kid = thumbprint(attacker.publicKey);
    const planted = await plantedThenVerified(db, sqlite, async (trx) => {
      await trx
        .insertInto('evidence_keys')
        .values({
          key_id: kid,
          public_jwk: JSON.stringify(attacker.publicKey.export({ format: 'jwk' })),
          valid_from: 0,
          valid_to: null,
        })
        .execute();
      const c = await trx.selectFrom('audit_checkpoints').selectAll().executeTakeFirstOrThrow();
      const forged = { ...c, at: Number(c.at), key_id: kid };
      await trx
        .updateTable('audit_checkpoints')
        .set({ key_id: kid, signature: signCheckpoint(forged, attacker.privateKey) })
        .execute();
    });
    expect(planted).toMatchObject({
      how: 'key',
      message: expect.stringContaining(`the evidence_keys row of ${kid} is not a configured key`),
    });
    expect(await verifyTrail(db, { keys, sqlite })).toMatchObject({ ok: true, entries: 7 });

    // Retention removes the start of the chain and moves its base: what is left still verifies, counted whole.
    await kysely.append([auditEntry({ at: Date.now() })]);
    expect(await kysely.deleteOlderThan(third.at + 1)).toBe(3);
    expect(await verifyTrail(db, { keys, sqlite, batch: 2 })).toMatchObject({
      ok: true,
      entries: 8,
      checkpoints: 1,
    });
    await checkpoints.checkpointNow();
    expect(await verifyTrail(db, { keys, sqlite, batch: 2 })).toMatchObject({
      ok: true,
      entries: 8,
      checkpoints: 2,
    });

    // Written at or before the chain's start (hostile review F8): a negative id, or an id retention removed. No
    // walk reaches it, so it is named before anything else, and no checkpoint or packet counts it.
    for (const id of [-1, third.id]) {
      const row = { ...auditEntry({ at: second.at, query: 'accept: forged by a database writer' }), id };
      await db
        .insertInto('audit_entries')
        .values({ ...row, prev_hash: 'f'.repeat(64), hash: 'f'.repeat(64), search_text: null })
        .execute();
      expect(
        (await checkpoints.checkpointNow()).entries,
        'a checkpoint counts the chain, not the table',
      ).toBe(8);
      const before = await verifyTrail(db, { keys, sqlite, batch: 3 });
      expect(before).toMatchObject({ how: 'inserted', id });
      expect(before.ok === false && before.message).toContain('it is before the start of the chain');
      await db.deleteFrom('audit_entries').where('id', '=', id).execute();
    }
    expect(await verifyTrail(db, { keys, sqlite })).toMatchObject({ ok: true, entries: 8 });
  });
});

describe.runIf(postgresAvailable())('replicas appending to one PostgreSQL', () => {
  let server: PostgresServer | undefined;
  const replicas: Database[] = [];
  beforeAll(async () => {
    server = await PostgresServer.start();
    replicas.push(await openDatabase({ url: server.url, dir: '' }));
    replicas.push(await openDatabase({ url: server.url, dir: '' }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await server?.destroy();
  });

  it('append one chain, never forked, however their transactions interleave', async () => {
    const stores = replicas.map((r) => new SqlAuditStore(r.db));
    const ROUNDS = 10;
    const AT_ONCE = 4;
    for (let round = 0; round < ROUNDS; round++) {
      // Each replica, several transactions at once on connections of its own pool: truly parallel appends.
      await Promise.all(
        stores.flatMap((store, r) =>
          Array.from({ length: AT_ONCE }, (_, k) =>
            store.append([
              auditEntry({ query: `${round}/${r}/${k} a` }),
              auditEntry({ query: `${round}/${r}/${k} b` }),
            ]),
          ),
        ),
      );
    }
    const db = (replicas[0] as Database).db;
    const forks = await sql<{ n: number }>`select count(*) - count(distinct prev_hash) as n
      from audit_entries`.execute(db);
    expect(Number(forks.rows[0]?.n)).toBe(0);
    expect(await verifyTrail(db)).toMatchObject({ ok: true, entries: ROUNDS * 2 * AT_ONCE * 2 });
  });
});
