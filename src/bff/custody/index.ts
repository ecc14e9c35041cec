import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { SqlKeyNames } from '../stores/key-names.ts';
import { type CustodyAudit, KeyCustody } from './key-custody.ts';
import { KeySealer } from './sealing.ts';
import { custodySecret } from './secret.ts';

export { withCustody } from './custody-sessions.ts';
export { KeyCustody, UNATTENDED } from './key-custody.ts';

/**
 * Key custody on the database (docs/decisions/013-key-custody.md), its secret resolved once here: given
 * (KEY_ENCRYPTION_SECRET), generated beside the embedded database, or absent where replicas share the database,
 * which leaves custody unavailable, said in Settings and logged once.
 */
export function createKeyCustody(options: {
  database: Database;
  /** KEY_ENCRYPTION_SECRET. */
  secret: string | undefined;
  /** Sessions are shared through Redis: replicas, so no secret of one process's own. */
  sharedSessions: boolean;
  audit?: CustodyAudit;
  logger: Logger;
  now?: () => number;
}): KeyCustody {
  const { database, logger } = options;
  const secret = custodySecret({
    configured: options.secret,
    shared: options.sharedSessions || database.dialect === 'postgres',
    sqliteFile: database.sqlite?.name,
  });
  if ('unavailable' in secret) logger.warn('key custody unavailable: KEY_ENCRYPTION_SECRET is not set');
  return new KeyCustody({
    db: database.db,
    sealer: 'secret' in secret ? new KeySealer(secret.secret) : secret,
    keyNames: new SqlKeyNames(database.db),
    logger,
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}
