import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { Audit } from './audit.ts';
import { AuditWriter } from './writer.ts';

/** The audit trail as the BFF runs it: the recorder, its group-commit writer, the store the routes read, retention. */
export interface AuditTrail {
  audit: Audit;
  writer: AuditWriter;
  store: SqlAuditStore;
  start(): void;
  stop(): Promise<void>;
  /** Removes entries past the retention now (also run hourly); returns how many went. */
  sweep(): Promise<number>;
}

export interface AuditTrailOptions {
  database: Database;
  logger: Logger;
  /** AUDIT_RETENTION_DAYS: entries older are removed; 0 keeps them forever. */
  retentionDays: number;
  now?: () => number;
}

const HOUR = 3_600_000;

export function createAuditTrail(options: AuditTrailOptions): AuditTrail {
  const now = options.now ?? Date.now;
  const store = new SqlAuditStore(options.database.db, options.database.sqlite);
  const writer = new AuditWriter({
    append: (entries) => store.append(entries),
    logger: options.logger,
    now,
  });
  let timer: ReturnType<typeof setInterval> | null = null;
  const sweep = async () => {
    if (options.retentionDays <= 0) return 0;
    const removed = await store.deleteOlderThan(now() - options.retentionDays * 24 * HOUR);
    if (removed > 0) options.logger.info({ removed }, 'audit entries past retention removed');
    return removed;
  };
  return {
    audit: new Audit(writer, now),
    writer,
    store,
    sweep,
    start() {
      timer ??= setInterval(() => void sweep().catch(() => {}), HOUR);
      timer.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await writer.stop();
    },
  };
}
