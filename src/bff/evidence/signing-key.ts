import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** Refused at start-up: the configured key cannot be used. Says why, never what the key is. */
export class SigningKeyError extends Error {}

/**
 * The key to sign with: EVIDENCE_SIGNING_KEY when set (refused unless it is an Ed25519 private key), otherwise the
 * one generated into `dir` the first time (mode 0600, linked into place whole: of two processes starting at once,
 * one key wins and both use it).
 */
export function loadSigningKey(configured: string | undefined, dir: string): SigningKey {
  if (configured?.trim()) return fromText(configured.trim());
  const file = join(dir, GENERATED_KEY_FILE);
  try {
    return fromText(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
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
