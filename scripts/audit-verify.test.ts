import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/bff/db/database.ts';
import { Checkpoints, signCheckpoint } from '../src/bff/evidence/checkpoints.ts';
import { loadSigningKey, thumbprint } from '../src/bff/evidence/signing-key.ts';
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

async function verify(folder = dir, ...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await auditVerify(
    { DATABASE_DIR: folder },
    { out: (l) => lines.push(l), err: (l) => lines.push(`error: ${l}`) },
    args,
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

describe('npm run audit:verify, the keys it trusts (hostile review F5)', () => {
  it('checks checkpoints against the configured keys or the JWKS given, and names a key a database writer added', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'proplens-audit-keys-'));
    try {
      // PropLens: a trail, its generated key beside the database, a checkpoint signed with it.
      let database = await openDatabase({ dir: folder });
      await new SqlAuditStore(database.db, database.sqlite).append([
        auditEntry({ at: 1_800_000_000_000, query: '1 Key St' }),
        auditEntry({ at: 1_800_000_000_001, query: '2 Key St' }),
      ]);
      const checkpoints = new Checkpoints(
        database.db,
        loadSigningKey(undefined, folder),
        () => 1_800_000_001_000,
      );
      const genuine = await checkpoints.checkpointNow();
      const served = join(folder, 'served.json');
      writeFileSync(served, JSON.stringify({ keys: await checkpoints.keys() }));
      await database.close();
      const ok = /^Audit trail verified: 2 entries, 1 checkpoints/;
      expect(await verify(folder)).toMatchObject({ code: 0, out: expect.stringMatching(ok) });
      expect(await verify(folder, '--keys', served)).toMatchObject({
        code: 0,
        out: expect.stringMatching(ok),
      });

      // A database writer: their own key among the evidence keys, and a checkpoint signed with it.
      const attacker = generateKeyPairSync('ed25519');
      const kid = thumbprint(attacker.publicKey);
      const jwk = attacker.publicKey.export({ format: 'jwk' });
      const forged = { ...genuine, at: 1_800_000_002_000, key_id: kid };
      database = await openDatabase({ dir: folder });
      await database.db
        .insertInto('evidence_keys')
        .values({
          key_id: kid,
          public_jwk: JSON.stringify(jwk),
          valid_from: 1_700_000_000_000,
          valid_to: null,
        })
        .execute();
      await database.db
        .insertInto('audit_checkpoints')
        .values({
          id: randomUUID(),
          slot: 'now:forged',
          ...forged,
          signature: signCheckpoint(forged, attacker.privateKey),
        })
        .execute();
      await database.close();
      for (const args of [[], ['--keys', served]])
        expect(await verify(folder, ...args)).toEqual({
          code: 1,
          out: expect.stringContaining(
            `error: Audit trail NOT verified: the evidence_keys row of ${kid} is not a configured key`,
          ),
        });
      // Without its row, the checkpoint it signed is named by its key.
      database = await openDatabase({ dir: folder });
      await database.db.deleteFrom('evidence_keys').where('key_id', '=', kid).execute();
      // The configured key's row made to hold the attacker's public key.
      const mine = genuine.key_id;
      const { public_jwk: original } = await database.db
        .selectFrom('evidence_keys')
        .select('public_jwk')
        .where('key_id', '=', mine)
        .executeTakeFirstOrThrow();
      await database.db
        .updateTable('evidence_keys')
        .set({ public_jwk: JSON.stringify(jwk) })
        .where('key_id', '=', mine)
        .execute();
      await database.close();
      expect(await verify(folder)).toEqual({
        code: 1,
        out: `error: Audit trail NOT verified: the evidence_keys row of ${mine} is not the configured key`,
      });
      database = await openDatabase({ dir: folder });
      await database.db
        .updateTable('evidence_keys')
        .set({ public_jwk: original })
        .where('key_id', '=', mine)
        .execute();
      await database.close();
      expect(await verify(folder, '--keys', served)).toEqual({
        code: 1,
        out: expect.stringContaining(
          `(entry ${genuine.head_id}) is signed by key ${kid}, which is not among the configured evidence keys`,
        ),
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
