import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { CompactSign, type JSONWebKeySet } from 'jose';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { openDatabase } from '../db/database.ts';
import { Checkpoints, signCheckpoint } from './checkpoints.ts';
import { createEvidence } from './evidence.ts';
import { EVIDENCE_KEYS_PATH, evidenceKeyRoutes } from './keys-route.ts';
import {
  GENERATED_KEY_FILE,
  loadRetiredKeys,
  loadSigningKey,
  RETIRED_KEYS_FILE,
  SigningKeyError,
  thumbprint,
} from './signing-key.ts';
import { verifyTrail } from './verify-trail.ts';

/*
 * Hostile review F5: whoever can write the database must not be able to publish a key in PropLens's JWKS, nor
 * have audit:verify trust one. The keys served are configuration's (the signing key, EVIDENCE_RETIRED_KEYS or the
 * embedded default's retired-keys file); a retired key still verifies what it signed while it was the key.
 */

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});
const folder = () => {
  const f = mkdtempSync(join(tmpdir(), 'proplens-keys-trust-'));
  folders.push(f);
  return f;
};

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const DAY = 86_400_000;

/** A packet as PropLens signs one (no files beside its manifest), dated `exportedAt`, signed by `key`. */
async function packet(key: { privateKey: KeyObject; kid: string }, exportedAt: number): Promise<Uint8Array> {
  const manifest = new TextEncoder().encode(
    `${JSON.stringify({
      type: 'proplens-evidence-packet',
      v: 1,
      exportedAt: new Date(exportedAt).toISOString(),
      proplens: { version: 'test', host: 'proplens.test' },
      files: [],
    })}\n`,
  );
  const jws = await new CompactSign(manifest)
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'proplens-evidence+jws' })
    .sign(key.privateKey);
  return zipSync({ 'manifest.json': manifest, 'manifest.jws': new TextEncoder().encode(jws) });
}

async function served(
  checkpoints: Checkpoints,
): Promise<JSONWebKeySet & { keys: Record<string, unknown>[] }> {
  const res = await evidenceKeyRoutes(checkpoints).request(EVIDENCE_KEYS_PATH);
  return (await res.json()) as never;
}

function recordingLogger() {
  const warnings: { details: Record<string, unknown>; message: string }[] = [];
  const logger = {
    warn: (details: Record<string, unknown>, message: string) => warnings.push({ details, message }),
  };
  return { warnings, logger: logger as unknown as Logger };
}

describe('the evidence keys served and trusted', () => {
  it("does not serve a key a database writer inserted, so a packet it signs does not verify (the review's forge)", async () => {
    const dir = folder();
    const database = await openDatabase({ dir });
    try {
      let now = T0;
      const { logger } = recordingLogger();
      const evidence = createEvidence({ database, signingKey: undefined, logger, now: () => now });
      const own = evidence.signingKey as NonNullable<typeof evidence.signingKey>;
      await evidence.checkpoints.register();
      // The attacker: their own public key in evidence_keys, valid since long before, and a backdated packet.
      const attacker = generateKeyPairSync('ed25519');
      const kid = thumbprint(attacker.publicKey);
      await database.db
        .insertInto('evidence_keys')
        .values({
          key_id: kid,
          public_jwk: JSON.stringify(attacker.publicKey.export({ format: 'jwk' })),
          valid_from: T0 - 365 * DAY,
          valid_to: null,
        })
        .execute();
      now = T0 + DAY;
      const jwks = await served(evidence.checkpoints);
      expect(jwks.keys.map((k) => k.kid)).toEqual([own.keyId]);
      const forged = await packet({ privateKey: attacker.privateKey, kid }, T0 - 30 * DAY);
      expect(await verifyPacket(forged, jwks)).toMatchObject({
        ok: false,
        summary: 'Not verified: signed by a key not in the JWKS.',
      });
      // PropLens's own packet of the same day verifies against the same JWKS.
      const genuine = await packet({ privateKey: own.privateKey, kid: own.keyId }, now);
      expect(await verifyPacket(genuine, jwks)).toMatchObject({ ok: true });
      // audit:verify, given the served JWKS, names the row.
      expect(await verifyTrail(database.db, { keys: jwks.keys })).toMatchObject({
        ok: false,
        how: 'key',
        message: expect.stringContaining(`the evidence_keys row of ${kid} is not a configured key`),
      });
    } finally {
      await database.close();
    }
  });

  it('keeps a retired generated key in the file beside it, says so once with its public key, and verifies what it signed while it was the key', async () => {
    const dir = folder();
    let now = T0;
    let database = await openDatabase({ dir });
    const first = createEvidence({
      database,
      signingKey: undefined,
      logger: recordingLogger().logger,
      now: () => now,
    });
    const old = first.signingKey as NonNullable<typeof first.signingKey>;
    await first.checkpoints.register();
    const oldPacket = await packet({ privateKey: old.privateKey, kid: old.keyId }, T0 + DAY);
    await database.close();

    // The generated key is replaced (its file removed): the next start makes another and retires the old one.
    rmSync(join(dir, GENERATED_KEY_FILE));
    now = T0 + 10 * DAY;
    database = await openDatabase({ dir });
    try {
      const { warnings, logger } = recordingLogger();
      const second = createEvidence({ database, signingKey: undefined, logger, now: () => now });
      const jwks = await served(second.checkpoints);
      await second.checkpoints.register();
      expect(warnings).toEqual([
        {
          message: expect.stringMatching(/^evidence key retired: kept in the retired-keys file/),
          details: { retiredKey: expect.objectContaining({ kid: old.keyId, x: expect.any(String) }) },
        },
      ]);
      expect(JSON.stringify(warnings)).not.toContain('"d"');
      expect(existsSync(join(dir, RETIRED_KEYS_FILE))).toBe(true);
      expect(jwks.keys).toEqual([
        expect.objectContaining({ kid: second.signingKey?.keyId, valid_to: null }),
        expect.objectContaining({
          kid: old.keyId,
          valid_from: new Date(T0).toISOString(),
          valid_to: new Date(T0 + 10 * DAY).toISOString(),
        }),
      ]);
      expect(await verifyPacket(oldPacket, jwks)).toMatchObject({ ok: true });
      const late = await packet({ privateKey: old.privateKey, kid: old.keyId }, T0 + 11 * DAY);
      expect(await verifyPacket(late, jwks)).toMatchObject({
        ok: false,
        problems: ['signed after its key was retired'],
      });
      const early = await packet({ privateKey: old.privateKey, kid: old.keyId }, T0 - DAY);
      expect(await verifyPacket(early, jwks)).toMatchObject({
        ok: false,
        problems: ['signed before its key existed'],
      });

      // audit:verify the same for checkpoints: one signed by the new key, dated before it existed, is named.
      const key = second.signingKey as NonNullable<typeof second.signingKey>;
      expect(await verifyTrail(database.db, { keys: jwks.keys })).toMatchObject({ ok: true });
      const backdated = { entries: 0, head_id: 0, head_hash: '', at: T0 + 5 * DAY, key_id: key.keyId };
      const chain = await database.db.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
      Object.assign(backdated, {
        head_id: chain.base_id,
        head_hash: chain.base_hash,
        entries: chain.base_count,
      });
      await database.db
        .insertInto('audit_checkpoints')
        .values({
          id: 'backdated',
          slot: 'now:backdated',
          ...backdated,
          signature: signCheckpoint(backdated, key.privateKey),
        })
        .execute();
      expect(await verifyTrail(database.db, { keys: jwks.keys })).toMatchObject({
        ok: false,
        message: expect.stringContaining('was signed before its key existed'),
      });
    } finally {
      await database.close();
    }
  });

  it('elsewhere serves a retired key only once EVIDENCE_RETIRED_KEYS lists it, and says so when it retires one', async () => {
    const dir = folder();
    const database = await openDatabase({ dir });
    try {
      const older = loadSigningKey(undefined, join(dir, 'older'));
      const newer = loadSigningKey(undefined, join(dir, 'newer'));
      await new Checkpoints(database.db, older, () => T0).register();
      const { warnings, logger } = recordingLogger();
      const warn = (d: object, m: string) => logger.warn(d, m);
      const unconfigured = new Checkpoints(database.db, newer, () => T0 + DAY, { warn });
      expect((await served(unconfigured)).keys.map((k) => k.kid)).toEqual([newer.keyId]);
      expect(warnings).toEqual([
        {
          message: expect.stringContaining('verify only if EVIDENCE_RETIRED_KEYS lists it'),
          details: { retiredKey: expect.objectContaining({ kid: older.keyId }) },
        },
      ]);
      // The operator adds it, from the warning, as a JWKS in the setting.
      const setting = JSON.stringify({ keys: [warnings[0]?.details.retiredKey] });
      const configured = new Checkpoints(database.db, newer, () => T0 + DAY, {
        retired: loadRetiredKeys(setting, undefined),
      });
      expect((await served(configured)).keys.map((k) => k.kid)).toEqual([newer.keyId, older.keyId]);
      const oldPacket = await packet({ privateKey: older.privateKey, kid: older.keyId }, T0 + 1000);
      expect(await verifyPacket(oldPacket, await served(configured))).toMatchObject({ ok: true });
      expect(await verifyPacket(oldPacket, await served(unconfigured))).toMatchObject({ ok: false });
    } finally {
      await database.close();
    }
  });

  it('refuses a retired key whose kid is not its thumbprint, or without its validity', () => {
    const publicKey = generateKeyPairSync('ed25519').publicKey;
    const jwk = publicKey.export({ format: 'jwk' });
    const valid = { valid_from: new Date(T0).toISOString(), valid_to: new Date(T0 + DAY).toISOString() };
    expect(() =>
      loadRetiredKeys(JSON.stringify({ keys: [{ ...jwk, kid: 'mine', ...valid }] }), undefined),
    ).toThrow(SigningKeyError);
    expect(() =>
      loadRetiredKeys(
        JSON.stringify({ keys: [{ ...jwk, kid: thumbprint(publicKey), valid_from: valid.valid_from }] }),
        undefined,
      ),
    ).toThrow(/needs valid_from and valid_to/);
    expect(() => loadRetiredKeys('/nowhere/retired.json', undefined)).toThrow(
      'EVIDENCE_RETIRED_KEYS: neither a JWKS nor a readable file (ENOENT)',
    );
  });
});
