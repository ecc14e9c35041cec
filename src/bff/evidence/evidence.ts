import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { Checkpoints } from './checkpoints.ts';
import { loadRetiredKeys, loadSigningKey, type SigningKey } from './signing-key.ts';

/** The BFF's evidence: the signing key, the chain's checkpoints (hourly and on demand) and the keys' JWKS. */
export interface Evidence {
  /** `checkpointNow()` signs one (an evidence export's); `keys()` are the JWKS's. */
  checkpoints: Checkpoints;
  /** The key checkpoints are signed with (evidence packets sign with it too); none where nothing can sign. */
  signingKey: SigningKey | undefined;
  /** Registers the key and writes the hour's checkpoint now and every few minutes (one per hour, any replica). */
  start(): void;
  stop(): void;
}

export interface EvidenceOptions {
  database: Database;
  /** EVIDENCE_SIGNING_KEY (PEM or JWK). */
  signingKey: string | undefined;
  /** EVIDENCE_RETIRED_KEYS (a JWKS or its file); none: the retired-keys file beside the generated key. */
  retiredKeys?: string | undefined;
  logger: Logger;
  now?: () => number;
}

/** How often a replica looks whether the hour's checkpoint is written. */
const LOOK_MS = 5 * 60_000;

/**
 * The signing key is loaded at once, so a key that cannot sign stops the start (SigningKeyError, which says why).
 * Without EVIDENCE_SIGNING_KEY: the embedded database's key, generated once beside its file; where replicas share
 * a PostgreSQL none (a key of each replica's own would sign one chain with many keys), logged once.
 */
export function createEvidence(options: EvidenceOptions): Evidence {
  const { database, logger } = options;
  const file = database.sqlite?.name;
  const key =
    options.signingKey?.trim() || file ? loadSigningKey(options.signingKey, dirname(file ?? '.')) : undefined;
  if (!key) logger.warn('audit checkpoints unavailable: EVIDENCE_SIGNING_KEY is not set');
  // The embedded database keeps the keys it retires in a file beside it, unless EVIDENCE_RETIRED_KEYS says (ADR 014).
  const keptDir = file && !options.retiredKeys ? dirname(file) : undefined;
  const checkpoints = new Checkpoints(database.db, key, options.now, {
    retired: loadRetiredKeys(options.retiredKeys, file ? dirname(file) : undefined),
    retiredKeysDir: keptDir,
    warn: (details, message) => logger.warn(details, message),
  });
  let timer: ReturnType<typeof setInterval> | null = null;
  const hourly = () =>
    void checkpoints
      .hourly()
      .catch((err: Error) => logger.warn({ err: { message: err.message } }, 'audit checkpoint not written'));
  return {
    checkpoints,
    signingKey: key,
    start() {
      if (timer || !key) return;
      hourly();
      timer = setInterval(hourly, LOOK_MS);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
