import { describe, expect, it } from 'vitest';
import { ApiErrorBody, AuditResponse, SessionResponse } from '../../contract/index.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { databaseBackends } from '../test-support/database-backends.ts';
import { createHarness } from '../test-support/harness.ts';

const backends = databaseBackends('activity-filters');

/** A signed-in harness on the database, and a way to put entries in its account's trail as they were typed. */
async function trail(backend: (typeof backends)[number]) {
  const h = createHarness({ database: backend.database });
  const { accountId } = SessionResponse.parse(await (await h.signIn()).json());
  await h.auditTrail?.writer.flush();
  const store = h.auditTrail?.store;
  if (!store) throw new Error('no audit trail');
  const entry = (over: Partial<NewAuditEntry>) =>
    auditEntry({
      at: Date.parse('2024-03-10T12:00:00Z'),
      account_id: accountId,
      key_fingerprint: '0badf00d',
      ...over,
    });
  const get = async (query: string) => {
    const res = await h.call(`/api/activity${query}`);
    expect(res.status).toBe(200);
    return AuditResponse.parse(await res.json()).entries;
  };
  return { h, add: (...over: Partial<NewAuditEntry>[]) => store.append(over.map(entry)), get };
}

describe.each(backends)('the Activity filters on $name', (backend) => {
  it('find _, % and \\ as typed, never as wildcards: a property id, a percentage, a backslash', async () => {
    const { add, get } = await trail(backend);
    await add(
      { query: 'a_b Main St' },
      { query: 'axb Main St' },
      { query: 'ab Main St' },
      { query: '50% of 12 Oak St' },
      { query: '500 Oak St' },
      { query: 'C:\\lots\\12 Elm St' },
      { query: 'C:lots12 Elm St' },
      { query: '1 Pine St', property_id: 'pi_7Xq2' },
      { query: '2 Pine St', property_id: 'pix7Xq2' },
    );
    const asked = async (q: string) =>
      (await get(`?q=${encodeURIComponent(q)}`)).map((e) => e.query ?? '').sort();
    expect(await asked('a_b')).toEqual(['a_b Main St']);
    expect(await asked('50%')).toEqual(['50% of 12 Oak St']);
    expect(await asked('\\lots\\')).toEqual(['C:\\lots\\12 Elm St']);
    expect(await asked('PI_7x')).toEqual(['1 Pine St']); // by property id, in any case
  });

  it('take a to= day whole, and a from= day from its first millisecond', async () => {
    const { add, get } = await trail(backend);
    await add(
      { at: Date.parse('2025-06-14T23:59:59.999Z'), query: 'day before' },
      { at: Date.parse('2025-06-15T00:00:00.000Z'), query: 'first moment' },
      { at: Date.parse('2025-06-15T23:59:59.999Z'), query: 'last moment' },
      { at: Date.parse('2025-06-16T00:00:00.000Z'), query: 'day after' },
    );
    const asked = async (query: string) => (await get(query)).map((e) => e.query);
    expect(await asked('?from=2025-06-15&to=2025-06-15')).toEqual(['last moment', 'first moment']);
    expect(await asked('?from=2025-06-14&to=2025-06-14')).toEqual(['day before']);
    expect(await asked('?from=2025-06-15T00:00:00.001Z&to=2025-06-16T00:00:00Z')).toEqual(['last moment']);
  });

  it.each([
    ['from=2024-02-30', /from: .*2024-02-30 is not a date/],
    ['to=2023-02-29', /to: .*2023-02-29 is not a date/],
    ['from=2024-04-31', /from: /],
    ['to=2024-13-01', /to: /],
    ['from=2024-00-10', /from: /],
    ['from=2024-02-30T10:00:00Z', /from: /],
    ['from=2024-03-10T25:00:00Z', /from: /],
    ['from=2024-03-10T10:00:00', /from: .*UTC/], // a time without a zone would be read as the server's own
  ])('refuse an impossible or ambiguous date, %s, with what to send', async (query, message) => {
    const { h } = await trail(backend);
    const res = await h.call(`/api/activity?${query}`);
    expect(res.status).toBe(400);
    const { error } = ApiErrorBody.parse(await res.json());
    expect(error.code).toBe('bad_request');
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/YYYY-MM-DD/);
  });

  it('take 2024-02-29, a real day of a leap year', async () => {
    const { add, get } = await trail(backend);
    await add({ at: Date.parse('2024-02-29T08:00:00Z'), query: 'leap day' });
    expect((await get('?from=2024-02-29&to=2024-02-29')).map((e) => e.query)).toEqual(['leap day']);
  });
});
