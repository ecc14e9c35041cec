import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';

/*
 * The evidence signing key (docs/decisions/014-evidence-formats.md): Ed25519, from EVIDENCE_SIGNING_KEY (a PEM or
 * a JWK private key), or, without it, one generated once beside the embedded database and kept there.
 */

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key's JWK thumbprint (RFC 7638, SHA-256, base64url): the `kid` of the JWKS. */
  keyId: string;
}

/** The file the generated key is kept in, in the database's folder. */
export const GENERATED_KEY_FILE = 'evidence-signing-key.pem';

/**
 * Beside the generated key: the public keys it replaced, as a JWKS. PropLens writes it when it retires the generated
 * key (the filesystem, trusted as the private key file is, never the database: ADR 014, "What a database writer can
 * and cannot do").
 */
export const RETIRED_KEYS_FILE = 'evidence-retired-keys.json';

/** A public evidence key as the JWKS serves it, with when it signed (ISO 8601; valid_to null: it signs now). */
export interface EvidenceKey extends JWK {
  kid: string;
  valid_from: string;
  valid_to: string | null;
}

/** Refused at start-up: the configured key cannot be used. Says why, never what the key is. */
export class SigningKeyError extends Error {}

/**
 * The key to sign with: EVIDENCE_SIGNING_KEY when set (refused unless it is an Ed25519 private key), otherwise the
 * one generated into `dir` the first time (mode 0600, linked into place whole: of two processes starting at once,
 * one key wins and both use it).
 */
export function loadSigningKey(configured: string | undefined, dir: string): SigningKey {
  const kept = readSigningKey(configured, dir);
  if (kept) return kept;
  const file = join(dir, GENERATED_KEY_FILE);
  mkdirSync(dir, { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return fromText(readFileSync(file, 'utf8'));
}

/** The configured key, or the generated one if there is one; never generates (npm run audit:verify reads it). */
export function readSigningKey(
  configured: string | undefined,
  dir: string | undefined,
): SigningKey | undefined {
  if (configured?.trim()) return fromText(configured.trim());
  if (!dir) return undefined;
  const text = readIfThere(join(dir, GENERATED_KEY_FILE));
  return text === undefined ? undefined : fromText(text);
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The retired public keys configuration trusts: EVIDENCE_RETIRED_KEYS (a JWKS, or the path of a file holding one),
 * or, without it, the file PropLens keeps beside the generated key in `dir`. Refused unless each is an Ed25519
 * public key whose `kid` is its thumbprint, with `valid_from` and `valid_to`.
 */
export function loadRetiredKeys(configured: string | undefined, dir: string | undefined): EvidenceKey[] {
  const setting = configured?.trim();
  const text = setting
    ? setting.startsWith('{')
      ? setting
      : readSetting(setting)
    : dir
      ? readIfThere(join(dir, RETIRED_KEYS_FILE))
      : undefined;
  if (text === undefined) return [];
  const where = setting ? 'EVIDENCE_RETIRED_KEYS' : join(dir as string, RETIRED_KEYS_FILE);
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch {
    throw new SigningKeyError(`${where}: not JSON (give a JWKS: {"keys": [...]})`);
  }
  if (!Array.isArray(keys)) throw new SigningKeyError(`${where}: not a JWKS (no "keys")`);
  return keys.map((k: Record<string, unknown>, i) => {
    const key = evidenceKeyOf(k, k.kid);
    const from = Date.parse(String(k.valid_from));
    const to = Date.parse(String(k.valid_to));
    if (!key)
      throw new SigningKeyError(
        `${where}: key ${i + 1} is not an Ed25519 public key whose kid is its thumbprint`,
      );
    if (Number.isNaN(from) || Number.isNaN(to))
      throw new SigningKeyError(`${where}: key ${key.kid} needs valid_from and valid_to (ISO 8601)`);
    return { ...key, valid_from: new Date(from).toISOString(), valid_to: new Date(to).toISOString() };
  });
}

function readSetting(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new SigningKeyError(
      `EVIDENCE_RETIRED_KEYS: neither a JWKS nor a readable file (${(err as NodeJS.ErrnoException).code})`,
    );
  }
}

/**
 * The public part of a JWK as an evidence key named `kid`, or undefined unless it is an Ed25519 key whose
 * thumbprint is `kid` (an evidence_keys row that fails this is not a key PropLens wrote). Validity left empty.
 */
export function evidenceKeyOf(jwk: unknown, kid: unknown): EvidenceKey | undefined {
  const { kty, crv, x } = (jwk ?? {}) as Record<string, unknown>;
  if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string') return undefined;
  try {
    const publicKey = createPublicKey({ key: { kty, crv, x }, format: 'jwk' });
    if (thumbprint(publicKey) !== kid) return undefined;
  } catch {
    return undefined;
  }
  return { kty, crv, x, kid, valid_from: '', valid_to: null };
}

/** Adds a retired key to the retired-keys file in `dir` (written whole, then renamed into place). */
export function keepRetiredKey(dir: string, key: EvidenceKey): void {
  const kept = loadRetiredKeys(undefined, dir);
  if (kept.some((k) => k.kid === key.kid)) return;
  const file = join(dir, RETIRED_KEYS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ keys: [...kept, key] }, null, 2)}\n`, { mode: 0o644 });
  renameSync(tmp, file);
}

function fromText(text: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = text.startsWith('{')
      ? createPrivateKey({ key: JSON.parse(text), format: 'jwk' })
      : // A PEM in one line of an environment file, its line breaks written \n.
        createPrivateKey(text.replaceAll('\\n', '\n'));
  } catch {
    throw new SigningKeyError(
      'EVIDENCE_SIGNING_KEY: not a readable private key (give an Ed25519 key as PEM, PKCS#8, or as a JWK with "d")',
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new SigningKeyError(
      `EVIDENCE_SIGNING_KEY: an Ed25519 key is needed, this is ${privateKey.asymmetricKeyType ?? 'not one'}`,
    );
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: thumbprint(publicKey) };
}

/** RFC 7638: SHA-256 of the required members of the JWK in lexical order, base64url. */
export function thumbprint(publicKey: KeyObject): string {
  const { crv, kty, x } = publicKey.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
}
