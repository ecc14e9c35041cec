import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/bff/db/database.ts';
import { SqlAuditStore } from '../src/bff/stores/audit/audit-store.ts';
import { auditEntry } from '../src/bff/test-support/audit-entry.ts';
import { auditVerify } from './audit-verify.ts';

/* `npm run audit:verify` as an operator runs it: the database from DATABASE_DIR, the verdict and the exit code. */

let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'proplens-audit-verify-'));
  const database = await openDatabase({ dir });
  await new SqlAuditStore(database.db, database.sqlite).append(
    Array.from({ length: 1_200 }, (_, i) =>
      auditEntry({ at: 1_700_000_000_000 + i, query: `${i} Verify Rd` }),
    ),
  );
  await database.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verify(): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await auditVerify(
    { DATABASE_DIR: dir },
    { out: (l) => lines.push(l), err: (l) => lines.push(`error: ${l}`) },
  );
  return { code, out: lines.join('\n') };
}

describe('npm run audit:verify', () => {
  it('exits 0 with the count, and 1 naming the entry changed behind PropLens', async () => {
    expect(await verify()).toEqual({
      code: 0,
      out: expect.stringMatching(/^Audit trail verified: 1,200 entries, 0 checkpoints, head [0-9a-f]{12}…$/),
    });
    const database = await openDatabase({ dir });
    await database.db
      .updateTable('audit_entries')
      .set({ outcome: 'matched' })
      .where('id', '=', 700)
      .execute();
    await database.close();
    expect(await verify()).toEqual({
      code: 1,
      out: `error: Audit trail NOT verified: entry 700 (${new Date(1_700_000_000_699).toISOString()}) was changed: its content does not match its hash`,
    });
  });
});
