import { describe, expect, it } from 'vitest';
import { ApiErrorBody, AuditResponse } from '../../contract/index.ts';
import { accountIdFor, hashKey } from '../stores/sessions/types.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { createHarness } from '../test-support/harness.ts';
import { tempDatabaseAll } from '../test-support/temp-database.ts';

/*
 * What a reviewer takes away from the Activity page: the CSV export holds the whole trail (not one batch of it),
 * and each entry says what really happened: a refused sign-in as refused, a rate-limited lookup as rate_limited.
 */

const temp = tempDatabaseAll('activity-export');

const searchEntry = (accountId: string, at: number, query: string) =>
  auditEntry({ at, account_id: accountId, session_ref: 'earlier-session', query });

describe('the Activity export', () => {
  it('holds every entry of a trail longer than one batch, once each, newest first', async () => {
    const h = createHarness({ database: temp.database });
    const signedIn = await h.signIn('pi_demo_enterprise');
    const { accountId } = (await signedIn.json()) as { accountId: string };
    const trail = h.auditTrail;
    if (!trail) throw new Error('no audit trail');
    const n = 1_205;
    const start = Date.now() - 2 * 86_400_000;
    await trail.store.append(
      Array.from({ length: n }, (_, i) => searchEntry(accountId, start + i * 1_000, `bulk ${i}`)),
    );
    const res = await h.call('/api/activity/export.csv');
    expect(res.status).toBe(200);
    const lines = (await res.text()).replace(/^\ufeff/, '').split('\r\n');
    expect(lines.at(-1)).toBe(''); // every line ends with CRLF
    const [header, ...data] = lines.slice(0, -1);
    expect(header?.split(',')[4]).toBe('asked');
    const asked = data.map((line) => line.split(',')[4]);
    // Newest written first: the bulk entries from the last down, then the sign-in; all of them, each once.
    expect(asked).toEqual([...Array.from({ length: n }, (_, i) => `bulk ${n - 1 - i}`), '']);
    expect(data.at(-1)?.split(',')[1]).toBe('sign_in');
  });

  it('names the key and the review’s owner by the names people gave their keys (review finding R14)', async () => {
    const h = createHarness({ database: temp.database });
    await h.signIn('pi_demo_professional_2');
    expect((await h.call('/api/session/name', { method: 'PUT', body: { name: 'Bob Brown' } })).status).toBe(
      200,
    );
    const signedIn = await h.signIn('pi_demo_professional');
    const { accountId, keyFingerprint } = (await signedIn.json()) as {
      accountId: string;
      keyFingerprint: string;
    };
    await h.call('/api/session/name', { method: 'PUT', body: { name: 'Dana Ortiz' } });
    const colleague = (await h.call('/api/account/keys').then((r) => r.json())) as {
      keys: { fingerprint: string; name: string }[];
    };
    const bobKey = colleague.keys.find((k) => k.name === 'Bob Brown')?.fingerprint as string;
    await h.auditTrail?.store.append([
      auditEntry({
        account_id: accountId,
        key_fingerprint: keyFingerprint,
        kind: 'review_row',
        query: '1 Main St',
        review_id: 'r1',
        row_index: 0,
        review_owner: bobKey,
      }),
    ]);
    const res = await h.call('/api/activity/export.csv');
    const [header, ...rows] = (await res.text())
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    const columns = header?.split(',') ?? [];
    expect(columns.slice(-4)).toEqual(['row', 'review_owner', 'key_name', 'review_owner_name']);
    const row = rows.map((l) => l.split(',')).find((cells) => cells[columns.indexOf('review_id')] === 'r1');
    expect(row?.slice(-4)).toEqual(['1', bobKey, 'Dana Ortiz', 'Bob Brown']);
  });
});

describe('the outcome each entry records', () => {
  it('a refused sign-in is recorded as refused, in the refused key’s own trail', async () => {
    const h = createHarness({ database: temp.database });
    const wrongKey = 'pi_live_not_a_key_at_all_0000';
    const refused = await h.signIn(wrongKey);
    expect(refused.status).toBe(401);
    const starter = await h.signIn('pi_demo_starter');
    expect(starter.status).toBe(403);
    const own = await h.auditTrail?.store.page(accountIdFor(hashKey(wrongKey)), {}, null, 10);
    expect(own?.map((e) => [e.kind, e.outcome])).toEqual([['sign_in_refused', 'refused']]);
    // The demo starter key's account is its visitor's own; find its entry by kind.
    const all = await temp.database.db
      .selectFrom('audit_entries')
      .select(['kind', 'outcome'])
      .where('kind', '=', 'sign_in_refused')
      .execute();
    expect(all).toEqual([
      { kind: 'sign_in_refused', outcome: 'refused' },
      { kind: 'sign_in_refused', outcome: 'refused' },
    ]);
  });

  it('a lookup the service refused for its rate limit is recorded as rate_limited', async () => {
    let reference: ReturnType<typeof createHarness>['reference'] | undefined;
    const h = createHarness({
      database: temp.database,
      fetch: async (request) =>
        new URL(request.url).pathname.endsWith('/resolve')
          ? new Response('{}', {
              status: 429,
              // An hour away: past what the BFF would wait for, so the client hears 429 at once.
              headers: {
                'X-RateLimit-Limit': '60',
                'X-RateLimit-Remaining': '0',
                'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 3_600),
              },
            })
          : (reference as NonNullable<typeof reference>).fetch(request),
    });
    reference = h.reference;
    expect((await h.signIn('pi_demo_professional')).status).toBe(200);
    const res = await h.resolve('1100 Congress Ave, Austin, TX 78701');
    expect(res.status).toBe(429);
    expect(ApiErrorBody.parse(await res.json()).error.code).toBe('rate_limited');
    const page = AuditResponse.parse(await (await h.call('/api/activity?limit=1')).json());
    expect(page.entries[0]).toMatchObject({
      kind: 'resolve',
      query: '1100 Congress Ave, Austin, TX 78701',
      outcome: 'rate_limited',
      session: expect.any(String),
    });
  });
});
