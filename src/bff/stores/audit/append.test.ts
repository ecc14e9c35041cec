import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { tempDatabaseAll } from '../../test-support/temp-database.ts';
import { SqlAuditStore } from './audit-store.ts';

/*
 * On the embedded file an entry is written through a statement prepared once, outside Kysely: never inside a
 * transaction Kysely holds open on the one connection, where a rollback would take the entry with it.
 */
const temp = tempDatabaseAll('audit-append');

const entry = (query: string) =>
  auditEntry({
    account_id: 'acct',
    key_fingerprint: 'fp',
    session_ref: 'sess',
    kind: 'resolve',
    query,
    outcome: 'matched',
    property_id: 'p1',
    source: 'County',
    confidence: 'high',
    last_verified: '2026-01-02',
  });

const queries = async () =>
  (await temp.database.db.selectFrom('audit_entries').select('query').orderBy('id').execute()).map(
    (r) => r.query,
  );

describe('appending to the embedded audit trail', () => {
  it('keeps every field, and an entry appended while another transaction is open survives its rollback', async () => {
    const store = new SqlAuditStore(temp.database.db, temp.database.sqlite);
    await store.append([entry('first'), entry('second')]);
    expect(await store.page('acct', {}, null, 10)).toMatchObject([
      { query: 'second', outcome: 'matched', propertyId: 'p1', session: 'sess', cached: false },
      { query: 'first' },
    ]);
    let release: () => void = () => {};
    const held = new Promise<void>((go) => {
      release = go;
    });
    const rolledBack = temp.database.db.transaction().execute(async (trx) => {
      await sql`update reviews set name = name`.execute(trx);
      await held;
      throw new Error('roll back');
    });
    await vi.waitFor(() => expect(temp.database.sqlite?.inTransaction).toBe(true));
    const appended = store.append([entry('during')]);
    release();
    await expect(rolledBack).rejects.toThrow('roll back');
    await appended;
    expect(await queries()).toEqual(['first', 'second', 'during']);
  });
});
