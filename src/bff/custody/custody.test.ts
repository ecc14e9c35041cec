import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CustodyState } from '../../contract/custody.ts';
import { ReviewSummary, SessionResponse } from '../../contract/index.ts';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { accountIdFor, hashKey, type Session } from '../stores/sessions/types.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { createHarness, fakeUpstream, type HarnessOptions, PRO_KEY } from '../test-support/harness.ts';
import { CUSTODY_READ_MS, KeyCustody, UNATTENDED } from './key-custody.ts';
import { KeySealer } from './sealing.ts';

/*
 * "Work while I'm signed out" end to end over HTTP, on the embedded SQLite (its secret generated beside the
 * database) and on a real PostgreSQL (KEY_ENCRYPTION_SECRET given, as replicas sharing it must): the review goes
 * on with nobody signed in and across a restart, a refused kept key is dropped and the work waits, and the key
 * is never in any table in clear.
 */

const SECRET = 'custody-test-secret-custody-test-secret-0';
type Harness = ReturnType<typeof createHarness>;

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.reviews?.worker.stop();
  harnesses = [];
});

/** A BFF on the database; PostgreSQL's is given the secret (shared databases have no generated one). */
function bff(database: Database, options: Omit<HarnessOptions, 'database'> = {}): Harness {
  const secret = database.dialect === 'postgres' ? { keyEncryptionSecret: SECRET } : {};
  const h = createHarness({ database, ...secret, ...options });
  harnesses.push(h);
  return h;
}

const custody = async (h: Harness, method = 'GET') => {
  const res = await h.call('/api/custody', { method });
  expect(res.status).toBe(200);
  return CustodyState.parse(await res.json());
};

async function startReview(h: Harness, addresses: string[]) {
  const created = await h.call('/api/reviews', {
    method: 'POST',
    body: {
      clientToken: `t${Math.random().toString(36).slice(2)}`,
      name: 'Overnight',
      kind: 'paste',
      columns: [],
      totalRows: addresses.length,
    },
  });
  const review = ReviewSummary.parse(await created.json());
  const put = await h.call(`/api/reviews/${review.id}/chunks`, {
    method: 'PUT',
    body: { index: 0, firstRow: 0, rows: addresses.map((address) => ({ address })), last: true },
  });
  expect(put.status).toBeLessThan(300);
  return review.id;
}

const finishedAt = async (database: Database, reviewId: string) =>
  (
    await database.db
      .selectFrom('review_runs')
      .select('finished_at')
      .where('review_id', '=', reviewId)
      .executeTakeFirst()
  )?.finished_at ?? null;

/** Every row of every table as text: what a dump of the database holds. */
async function everyRowAsText(database: Database): Promise<string> {
  const tables =
    database.dialect === 'postgres'
      ? (
          await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
            database.db,
          )
        ).rows
      : (
          await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
            database.db,
          )
        ).rows;
  let text = '';
  for (const { name } of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(database.db);
    text += JSON.stringify(rows.rows);
  }
  return text;
}

/** An upstream that takes any key at sign-in and refuses it (401, or 403: no API access) on every lookup. */
function refusingUpstream(status: number) {
  const lookups: URL[] = [];
  const me = fakeUpstream(() => ({}));
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/auth/me')) return me(request);
    lookups.push(url);
    return new Response(JSON.stringify({ error: { code: 'invalid_key', message: 'Key revoked.' } }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { lookups, fetch };
}

describe.each(databaseBackends('custody'))('key custody on $name', (backend) => {
  it('turned on, everyone signed out, the BFF restarted: the review finishes on the kept key, unattended', async () => {
    const { database } = backend;
    const first = bff(database);
    const me = SessionResponse.parse(await (await first.signIn()).json());
    await first.call('/api/session/name', { method: 'PUT', body: { name: 'Dana Ortiz' } });
    const a = first.cookie;
    first.cookie = '';
    await first.signIn();
    const b = first.cookie;
    first.cookie = a;
    const on = await custody(first, 'PUT');
    expect(on).toMatchObject({
      available: true,
      on: true,
      keyFingerprint: me.keyFingerprint,
      keyName: 'Dana Ortiz',
      problem: null,
    });
    const reviewId = await startReview(first, ['1 Main St, Austin, TX', '2 Oak Ave, Denver, CO']);
    for (const cookie of [a, b]) {
      first.cookie = cookie;
      expect((await first.call('/api/session', { method: 'DELETE' })).status).toBe(204);
    }
    expect(await first.sessions.liveAccounts()).not.toContain(me.accountId);

    // A restart: new stores (no session anywhere), a new graph, the same database and secret.
    const second = bff(database);
    second.reviews?.worker.start();
    await vi.waitFor(async () => expect(await finishedAt(database, reviewId)).not.toBeNull(), {
      timeout: 4_000,
      interval: 25,
    });
    await second.auditTrail?.writer.flush();
    const entries = await database.db
      .selectFrom('audit_entries')
      .select(['kind', 'key_fingerprint', 'session_ref'])
      .where('review_id', '=', reviewId)
      .where('kind', '=', 'review_row')
      .execute();
    expect(entries).toHaveLength(2);
    for (const e of entries)
      expect(e).toEqual({ kind: 'review_row', key_fingerprint: me.keyFingerprint, session_ref: UNATTENDED });
    const turnedOn = await database.db
      .selectFrom('audit_entries')
      .select(['key_fingerprint', 'query'])
      .where('account_id', '=', me.accountId)
      .where('kind', '=', 'custody_on')
      .execute();
    expect(turnedOn).toContainEqual({
      key_fingerprint: me.keyFingerprint,
      query: `key ${me.keyFingerprint}`,
    });
  });

  it('never holds the key in clear: not in any row of any table, nor (SQLite) in the database files', async () => {
    const { database } = backend;
    const h = bff(database);
    await h.signIn();
    const answered = await (await h.call('/api/custody', { method: 'PUT' })).text();
    expect(answered).not.toContain(PRO_KEY);
    const reviewId = await startReview(h, ['3 Elm St, Austin, TX']);
    h.reviews?.worker.start();
    await vi.waitFor(async () => expect(await finishedAt(database, reviewId)).not.toBeNull(), {
      timeout: 4_000,
      interval: 25,
    });
    const dump = await everyRowAsText(database);
    expect(dump).toContain('hkdf-sha256:v1');
    expect(dump).not.toContain(PRO_KEY);
    // Nor in the log, nor the secret.
    expect(h.logs.join('\n')).not.toContain(PRO_KEY);
    expect(h.logs.join('\n')).not.toContain(SECRET);
    if (database.dialect === 'sqlite') {
      const dir = dirname(database.sqlite?.name as string);
      database.sqlite?.pragma('wal_checkpoint(PASSIVE)');
      for (const file of readdirSync(dir).filter((f) => f.startsWith('proplens.db')))
        expect(readFileSync(join(dir, file)).includes(PRO_KEY)).toBe(false);
    }
  });

  it('turned off by any key of the account: the row is deleted, nothing decryptable is left', async () => {
    const { database } = backend;
    const h = bff(database);
    const me = SessionResponse.parse(await (await h.signIn()).json());
    await custody(h, 'PUT');
    expect(
      (await h.call('/api/custody', { method: 'DELETE', headers: { 'X-Requested-With': '' } })).status,
    ).toBe(403);
    const off = await custody(h, 'DELETE');
    expect(off).toMatchObject({ on: false, keyFingerprint: null, problem: null });
    const rows = await database.db
      .selectFrom('custody_keys')
      .selectAll()
      .where('account_id', '=', me.accountId)
      .execute();
    expect(rows).toEqual([]);
    expect(await h.graph.custody?.sessionFor(me.accountId)).toBeUndefined();
  });

  it.each([401, 403])(
    'a kept key the service refuses (%i) is dropped at once and the work waits; Settings says when',
    async (status) => {
      const { database } = backend;
      const upstream = refusingUpstream(status);
      const h = bff(database, { fetch: upstream.fetch });
      const key = `pi_custody_refused_${status}_${backend.name}`;
      const me = SessionResponse.parse(await (await h.signIn(key)).json());
      await custody(h, 'PUT');
      const reviewId = await startReview(h, ['4 Pine St, Austin, TX']);
      await h.call('/api/session', { method: 'DELETE' });
      h.reviews?.worker.start();
      await vi.waitFor(
        async () => {
          const row = await database.db
            .selectFrom('custody_keys')
            .selectAll()
            .where('account_id', '=', me.accountId)
            .executeTakeFirstOrThrow();
          expect(row.refused_at).not.toBeNull();
          expect([row.ciphertext, row.iv, row.auth_tag, row.key_check]).toEqual([null, null, null, null]);
        },
        { timeout: 4_000, interval: 25 },
      );
      // Paused: no account with a key to lend, no session of the kept key, and it was asked with once.
      expect(await h.graph.custody?.accounts()).not.toContain(me.accountId);
      expect(await h.graph.custody?.sessionFor(me.accountId)).toBeUndefined();
      expect(upstream.lookups).toHaveLength(1);
      expect(await finishedAt(database, reviewId)).toBeNull();
      // Signed in again (the service takes the key at sign-in here): Settings says the kept key was refused, and when.
      await h.reviews?.worker.stop();
      await h.signIn(key);
      const state = await custody(h);
      expect(state).toMatchObject({ on: false, problem: 'refused', keyFingerprint: me.keyFingerprint });
      expect(Date.parse(state.problemAt as string)).toBeGreaterThan(Date.now() - 60_000);
    },
  );

  it('a sign-in with a key the service refuses deletes that key wherever it is kept', async () => {
    const { database } = backend;
    let refuse = false;
    const me = fakeUpstream(() => ({}));
    const h = bff(database, {
      fetch: async (request) =>
        refuse
          ? new Response(JSON.stringify({ error: { code: 'invalid_key', message: 'No such key.' } }), {
              status: 401,
              headers: { 'content-type': 'application/json' },
            })
          : me(request),
    });
    const key = `pi_custody_signin_${backend.name}`;
    const session = SessionResponse.parse(await (await h.signIn(key)).json());
    await custody(h, 'PUT');
    refuse = true;
    expect((await h.signIn(key)).status).toBe(401);
    const row = await database.db
      .selectFrom('custody_keys')
      .select(['ciphertext', 'refused_at'])
      .where('account_id', '=', session.accountId)
      .executeTakeFirstOrThrow();
    expect(row.ciphertext).toBeNull();
    expect(row.refused_at).not.toBeNull();
  });

  it('a sealed key copied into another account’s row does not open there', async () => {
    const { database } = backend;
    const h = bff(database, { fetch: fakeUpstream(() => ({})) });
    const one = SessionResponse.parse(await (await h.signIn(`pi_custody_one_${backend.name}`)).json());
    await custody(h, 'PUT');
    const two = SessionResponse.parse(await (await h.signIn(`pi_custody_two_${backend.name}`)).json());
    await custody(h, 'PUT');
    const sealed = await database.db
      .selectFrom('custody_keys')
      .select(['ciphertext', 'iv', 'auth_tag', 'key_fingerprint', 'key_check'])
      .where('account_id', '=', one.accountId)
      .executeTakeFirstOrThrow();
    await database.db
      .updateTable('custody_keys')
      .set(sealed)
      .where('account_id', '=', two.accountId)
      .execute();
    const other = bff(database, { fetch: fakeUpstream(() => ({})) });
    expect(await other.graph.custody?.sessionFor(two.accountId)).toBeUndefined();
    expect(await other.graph.custody?.accounts()).toContain(one.accountId);
    expect((await other.graph.custody?.sessionFor(one.accountId))?.accountId).toBe(one.accountId);
    // Settings of the account whose row it is now says so (signed in as two, in the first BFF).
    expect(await custody(h)).toMatchObject({ on: false, problem: 'unreadable' });
  });

  it('after KEY_ENCRYPTION_SECRET changes, a kept key is unreadable (said so), lends nothing, and is kept again when turned on', async () => {
    const { database } = backend;
    const key = `pi_custody_rotated_${backend.name}`;
    const before = bff(database, { fetch: fakeUpstream(() => ({})) });
    const me = SessionResponse.parse(await (await before.signIn(key)).json());
    await custody(before, 'PUT');
    const after = createHarness({
      database,
      fetch: fakeUpstream(() => ({})),
      keyEncryptionSecret: `${SECRET}-rotated`,
    });
    harnesses.push(after);
    await after.signIn(key);
    expect(await custody(after)).toMatchObject({
      on: false,
      problem: 'unreadable',
      keyFingerprint: me.keyFingerprint,
    });
    expect(await after.graph.custody?.accounts()).not.toContain(me.accountId);
    expect(await after.graph.custody?.sessionFor(me.accountId)).toBeUndefined();
    expect(await custody(after, 'PUT')).toMatchObject({ on: true, problem: null });
    expect((await after.graph.custody?.sessionFor(me.accountId))?.accountId).toBe(me.accountId);
  });

  it('turned off on one replica, no longer lent by another once its one-second read has passed', async () => {
    const { database } = backend;
    let now = Date.parse('2026-11-26T09:00:00Z');
    const replica = () =>
      new KeyCustody({
        db: database.db,
        sealer: new KeySealer(SECRET),
        logger: createLogger('silent'),
        now: () => now,
      });
    const [a, b] = [replica(), replica()];
    const keyHash = hashKey(`pi_custody_replicas_${backend.name}`);
    const session: Session = {
      apiKey: `pi_custody_replicas_${backend.name}`,
      keyHash,
      account: { name: 'Acme Lending', plan: 'enterprise' },
      accountId: accountIdFor(keyHash),
      createdAt: now,
      lastSeenAt: now,
    };
    await a.turnOn(session);
    expect((await b.sessionFor(session.accountId))?.apiKey).toBe(session.apiKey);
    expect(await b.accounts()).toContain(session.accountId);
    await a.turnOff(session);
    expect(await a.sessionFor(session.accountId)).toBeUndefined();
    now += CUSTODY_READ_MS + 1;
    expect(await b.sessionFor(session.accountId)).toBeUndefined();
    expect(await b.accounts()).not.toContain(session.accountId);
  });

  it('refuses demo keys: every visitor shares the demo account', async () => {
    const { database } = backend;
    const h = bff(database, { demoKeys: [{ key: PRO_KEY, plan: 'professional', label: 'Professional' }] });
    await h.signIn(PRO_KEY);
    const state = await custody(h);
    expect(state.unavailableReason).toMatch(/demo keeps no keys/);
    const res = await h.call('/api/custody', { method: 'PUT' });
    expect(res.status).toBe(409);
  });
});
