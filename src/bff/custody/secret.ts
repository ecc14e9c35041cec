import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database } from '../db/database.ts';

/*
 * KEY_ENCRYPTION_SECRET, the one secret kept keys are sealed under (docs/decisions/013-key-custody.md). Given, it is
 * used (env.ts refuses one under 32 characters at start). Not given, and the database is the embedded one of
 * this process, it is generated once into the database's folder (mode 0600) and read from there at every start:
 * back that file up with the database, for without it no kept key opens. Not given where replicas share the
 * database (DATABASE_URL, or Redis replicas), custody is unavailable: a secret generated on one replica would
 * seal keys the others cannot open.
 */

export const MIN_SECRET_CHARS = 32;
export const SECRET_FILE = 'key-encryption-secret';

export type CustodySecret = { secret: string } | { unavailable: string };

export function custodySecret(options: {
  /** KEY_ENCRYPTION_SECRET, already checked for length by env.ts. */
  configured: string | undefined;
  /** Replicas share the database (PostgreSQL, or sessions on Redis). */
  shared: boolean;
  /** The embedded database's file: the generated secret lives beside it. */
  sqliteFile: string | undefined;
}): CustodySecret {
  if (options.configured) return { secret: options.configured };
  if (options.shared || !options.sqliteFile)
    return {
      unavailable:
        'This server keeps no keys: its replicas share a database and its administrator has not set KEY_ENCRYPTION_SECRET (the same on every replica).',
    };
  return { secret: secretFileIn(dirname(options.sqliteFile)) };
}

/**
 * The server secret for the BFF's database: key custody's, and the webhook signing secrets' (each derives its own
 * data key from it). Replicas share the database when it is PostgreSQL or sessions are on Redis.
 */
export function serverSecret(
  database: Database,
  options: { configured: string | undefined; sharedSessions: boolean },
): CustodySecret {
  return custodySecret({
    configured: options.configured,
    shared: options.sharedSessions || database.dialect === 'postgres',
    sqliteFile: database.sqlite?.name,
  });
}

/**
 * The secret in `dir`, generated when there is none: written in full to a temporary file of mode 0600, then
 * linked to its name, which fails if another process got there first (then its secret is the one read), so
 * nobody ever reads half a secret or two processes keep different ones.
 */
export function secretFileIn(dir: string): string {
  const file = join(dir, SECRET_FILE);
  const existing = readSecret(file);
  if (existing !== null) return existing;
  const temporary = join(dir, `.${SECRET_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temporary);
  }
  const made = readSecret(file);
  if (made === null) throw new Error(`${file} could not be read back after it was written.`);
  return made;
}

/** The secret in `file`, null when there is no file; a file too short to be one stops the start. */
function readSecret(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (text.length < MIN_SECRET_CHARS)
    throw new Error(
      `${file} holds no key encryption secret (at least ${MIN_SECRET_CHARS} characters): restore it from its backup, or delete it to turn every kept key off.`,
    );
  // Nobody else on the machine reads it, whatever the umask was when it was copied back from a backup.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return text;
}
