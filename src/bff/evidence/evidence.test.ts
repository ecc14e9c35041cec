import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/database.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { Checkpoints } from './checkpoints.ts';
import { EVIDENCE_KEYS_PATH, evidenceKeyRoutes } from './keys-route.ts';
import { GENERATED_KEY_FILE, loadRetiredKeys, loadSigningKey, SigningKeyError } from './signing-key.ts';
import { verifyTrail } from './verify-trail.ts';

/*
 * The evidence key as an operator configures it and as anyone checks it: refused at start unless it is an Ed25519
 * private key; generated once for the embedded database and kept; published with the keys it replaced.
 */

let dir = '';
let database: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'proplens-evidence-'));
  database = await openDatabase({ dir: join(dir, 'db') });
});
afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const ed25519 = () => generateKeyPairSync('ed25519').privateKey;
const HOUR = 3_600_000;

describe('the evidence signing key', () => {
  it('is generated once into the folder given, readable by its owner only, and the same at every start', () => {
    const folder = join(dir, 'generated');
    const first = loadSigningKey(undefined, folder);
    expect(statSync(join(folder, GENERATED_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadSigningKey(undefined, folder).keyId).toBe(first.keyId);
    expect(loadSigningKey('  ', folder).keyId).toBe(first.keyId);
  });

  it('is taken as PEM (its line breaks written \\n too) or as a JWK, the same key the same id', () => {
    const key = ed25519();
    const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const id = loadSigningKey(pem, dir).keyId;
    expect(loadSigningKey(pem.replaceAll('\n', '\\n'), dir).keyId).toBe(id);
    expect(loadSigningKey(JSON.stringify(key.export({ format: 'jwk' })), dir).keyId).toBe(id);
  });

  it('is refused, saying why and never what it is, unless it is an Ed25519 private key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => loadSigningKey(rsa, dir)).toThrow(SigningKeyError);
    expect(() => loadSigningKey(rsa, dir)).toThrow(
      /EVIDENCE_SIGNING_KEY: an Ed25519 key is needed, this is rsa/,
    );
    const publicOnly = JSON.stringify({ ...ed25519().export({ format: 'jwk' }), d: undefined });
    for (const bad of ['secret-words-secret-words', publicOnly, '-----BEGIN PRIVATE KEY-----\nAAAA\n']) {
      let message = '';
      try {
        loadSigningKey(bad, dir);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^EVIDENCE_SIGNING_KEY: not a readable private key/);
      expect(message).not.toContain(bad.slice(0, 12));
    }
  });
});

describe('checkpoints and the published keys', () => {
  it('writes the hour once across replicas, none while the chain stands still, and on demand when it moved', async () => {
    const pem = ed25519().export({ type: 'pkcs8', format: 'pem' }).toString();
    let now = 10 * HOUR + 5;
    const replicas = [0, 1, 2].map(() => new Checkpoints(database.db, loadSigningKey(pem, dir), () => now));
    await new SqlAuditStore(database.db, database.sqlite).append([auditEntry({ query: '1 Hour St' })]);
    expect(await Promise.all(replicas.map((r) => r.hourly()))).toEqual(
      expect.arrayContaining([true, false, false]),
    );
    expect((await Promise.all(replicas.map((r) => r.hourly()))).filter(Boolean)).toHaveLength(0);
    now += HOUR;
    expect((await Promise.all(replicas.map((r) => r.hourly()))).filter(Boolean)).toHaveLength(0);
    await new SqlAuditStore(database.db, database.sqlite).append([auditEntry({ query: '2 Hour St' })]);
    expect((await Promise.all(replicas.map((r) => r.hourly()))).filter(Boolean)).toHaveLength(1);
    const first = replicas[0] as Checkpoints;
    // On demand (an export): the hour's checkpoint again while the chain stands still, not a row per export.
    const hour = await first.checkpointNow();
    now += 60_000;
    expect(await Promise.all([first.checkpointNow(), first.checkpointNow()])).toEqual([hour, hour]);
    expect(hour).toMatchObject({ entries: 2, at: now - 60_000 });
    await new SqlAuditStore(database.db, database.sqlite).append([auditEntry({ query: '3 Hour St' })]);
    expect(await first.checkpointNow()).toMatchObject({ entries: 3, at: now });
    expect(await first.checkpointNow()).toMatchObject({ entries: 3, at: now });
    expect(await verifyTrail(database.db, { keys: await first.keys() })).toMatchObject({
      ok: true,
      entries: 3,
      checkpoints: 3,
    });
    // A checkpoint row this key did not sign (a database writer's) is not passed on: a new one is signed.
    await database.db
      .updateTable('audit_checkpoints')
      .set({ signature: Buffer.alloc(64).toString('base64url') })
      .where('entries', '=', 3)
      .execute();
    now += 1;
    expect((await first.checkpointNow()).at).toBe(now);
    await database.db
      .deleteFrom('audit_checkpoints')
      .where('at', '=', now - 1)
      .execute();
  });

  it('publishes the current key and the retired ones with when each signed, and no private part', async () => {
    // The embedded default: each key retired is kept in the retired-keys file beside the database.
    const kept = join(dir, 'db');
    const older = new Checkpoints(
      database.db,
      loadSigningKey(undefined, join(dir, 'old')),
      () => 1_000 * HOUR,
      { retired: loadRetiredKeys(undefined, kept), retiredKeysDir: kept },
    );
    await older.checkpointNow();
    const newer = new Checkpoints(
      database.db,
      loadSigningKey(undefined, join(dir, 'new')),
      () => 2_000 * HOUR,
      { retired: loadRetiredKeys(undefined, kept), retiredKeysDir: kept },
    );
    await newer.register();
    const res = await evidenceKeyRoutes(newer).request(EVIDENCE_KEYS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', valid_to: null });
    expect(keys).toContainEqual(
      expect.objectContaining({
        valid_from: new Date(1_000 * HOUR).toISOString(),
        valid_to: new Date(2_000 * HOUR).toISOString(),
      }),
    );
    for (const k of keys) expect(k).not.toHaveProperty('d');
    // A checkpoint signed by the retired key still verifies against it.
    expect(await verifyTrail(database.db, { keys })).toMatchObject({ ok: true });
  });
});
