import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { newSecret, SecretsUnavailable, WebhookEndpoints } from './endpoint-store.ts';
import { WebhookOutbox } from './outbox-store.ts';
import { WebhookSecrets } from './secrets.ts';
import type { AttemptResult } from './sender.ts';

/*
 * Signing secrets at rest: sealed under the server secret and bound to their endpoint, so the database alone
 * holds no secret a forger could sign with; secrets from before sealing are sealed at the dispatcher's first pass
 * and keep signing as before; a server with no secret to seal with adds no endpoint.
 */

const SERVER_SECRET = 'a server secret of at least thirty-two characters';
const secrets = new WebhookSecrets(SERVER_SECRET);
const ok: AttemptResult = { delivered: true, statusCode: 204, error: null, durationMs: 1, response: null };

describe('WebhookSecrets', () => {
  it('opens what it sealed for the same endpoint, and nothing else', () => {
    const secret = newSecret();
    const sealed = secrets.seal('ep_a', secret);
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(secrets.open('ep_a', sealed)).toBe(secret);
    // Copied into another endpoint's row, under another server secret, or one character changed: nothing.
    expect(secrets.open('ep_b', sealed)).toBeNull();
    expect(new WebhookSecrets(`${SERVER_SECRET}!`).open('ep_a', sealed)).toBeNull();
    const body = sealed.length - 3;
    const altered = `${sealed.slice(0, body)}${sealed[body] === 'A' ? 'B' : 'A'}${sealed.slice(body + 1)}`;
    expect(secrets.open('ep_a', altered)).toBeNull();
    expect(secrets.open('ep_a', secret)).toBeNull();
  });
});

/** Every row of every table of the database, as text: what an attacker with a dump would read. */
async function dump(database: Database): Promise<string> {
  const tables =
    database.dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema()`.execute(database.db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(database.db);
  const rows = await Promise.all(
    tables.rows.map(({ name }) => sql`select * from ${sql.table(name)}`.execute(database.db)),
  );
  return JSON.stringify(rows.map((r) => r.rows));
}

describe.each(databaseBackends('webhook-secrets'))('webhook secrets on $name', (backend) => {
  const world = () => {
    const now = () => Date.UTC(2026, 10, 26, 9);
    const account = `acct-${randomBytes(6).toString('hex')}`;
    const scope = { accountId: account, visitor: null };
    const endpoints = new WebhookEndpoints(backend.database.db, now, secrets);
    const outbox = new WebhookOutbox(backend.database.db, now, secrets);
    const sent: { endpointId: string; secret: string }[] = [];
    const dispatcher = new WebhookDispatcher({
      db: backend.database.db,
      outbox,
      logger: createLogger('silent'),
      now,
      prepare: async () => {
        await endpoints.sealClearSecrets();
      },
      attempt: async (m) => {
        sent.push({ endpointId: m.endpointId, secret: m.secret });
        return ok;
      },
    });
    const add = () =>
      endpoints.create(scope, {
        url: 'https://hooks.example.com/s',
        events: ['monitor.paused'],
        createdBy: 'ab12cd34',
      });
    return { account, scope, endpoints, outbox, dispatcher, sent, add };
  };

  it('keeps no secret in any table, and signs with the one shown at creation and rotation', async () => {
    const w = world();
    const made = await w.add();
    const rotated = await w.endpoints.rotateSecret(w.scope, made.row.id);
    const other = await w.add();
    const everything = await dump(backend.database);
    for (const secret of [made.secret, rotated?.secret, other.secret] as string[]) {
      expect(everything).not.toContain(secret.slice('whsec_'.length));
    }
    await w.outbox.enqueue(w.account, 'monitor.paused', { reviewId: null }, 'paused:1');
    await w.dispatcher.tick();
    expect(w.sent).toEqual(
      expect.arrayContaining([
        { endpointId: made.row.id, secret: rotated?.secret },
        { endpointId: other.row.id, secret: other.secret },
      ]),
    );
  });

  it('seals the secrets stored in clear before, once, with dispatchers racing, and signs with them as before', async () => {
    const w = world();
    const { row } = await w.add();
    const clear = newSecret();
    await backend.database.db
      .updateTable('webhook_endpoints')
      .set({ secret: clear })
      .where('id', '=', row.id)
      .execute();
    const counts = await Promise.all([w.endpoints.sealClearSecrets(), w.endpoints.sealClearSecrets()]);
    expect(counts.reduce((a, b) => a + b)).toBe(1);
    expect(await dump(backend.database)).not.toContain(clear.slice('whsec_'.length));
    await w.outbox.enqueue(w.account, 'monitor.paused', { reviewId: null }, 'paused:1');
    await w.dispatcher.tick();
    expect(w.sent).toEqual([{ endpointId: row.id, secret: clear }]);
  });

  it('sends nothing, and logs why, for a sealed secret copied into another endpoint', async () => {
    const w = world();
    const a = await w.add();
    const b = await w.add();
    await backend.database.db
      .updateTable('webhook_endpoints')
      .set({ secret: a.row.secret })
      .where('id', '=', b.row.id)
      .execute();
    expect(await w.outbox.enqueue(w.account, 'monitor.paused', { reviewId: null }, 'paused:1')).toHaveLength(
      2,
    );
    await w.dispatcher.tick();
    expect(w.sent).toEqual([{ endpointId: a.row.id, secret: a.secret }]);
    const log = await backend.database.db
      .selectFrom('webhook_attempts as t')
      .innerJoin('webhook_outbox as o', 'o.id', 't.outbox_id')
      .select(['t.error', 't.status_code'])
      .where('o.endpoint_id', '=', b.row.id)
      .execute();
    expect(log).toEqual([{ error: expect.stringMatching(/KEY_ENCRYPTION_SECRET/), status_code: null }]);
  });

  it('adds no endpoint where there is no server secret, and keeps one from before working', async () => {
    const w = world();
    const { row } = await w.add();
    const clear = newSecret();
    await backend.database.db
      .updateTable('webhook_endpoints')
      .set({ secret: clear })
      .where('id', '=', row.id)
      .execute();
    const none = { unavailable: 'This server keeps no keys: KEY_ENCRYPTION_SECRET is not set.' };
    const now = () => Date.UTC(2026, 10, 26, 9);
    const endpoints = new WebhookEndpoints(backend.database.db, now, none);
    await expect(
      endpoints.create(w.scope, {
        url: 'https://x.example/',
        events: ['monitor.paused'],
        createdBy: 'ab12cd34',
      }),
    ).rejects.toThrow(SecretsUnavailable);
    await expect(endpoints.rotateSecret(w.scope, row.id)).rejects.toThrow(/KEY_ENCRYPTION_SECRET/);
    expect(await endpoints.sealClearSecrets()).toBe(0);
    const outbox = new WebhookOutbox(backend.database.db, now, none);
    await outbox.enqueue(w.account, 'monitor.paused', { reviewId: null }, 'paused:1');
    const [message] = await outbox.lease('test', 10, 60_000);
    expect(message?.secret).toBe(clear);
  });
});
