import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { catchUp } from '../stores/audit/search-index.ts';
import { Audit } from './audit.ts';
import { FollowerThread } from './follower.ts';
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
  /** Brings the text filter's index up to the trail now (also run every second); returns how many it passed. */
  follow(): Promise<number>;
}

export interface AuditTrailOptions {
  database: Database;
  logger: Logger;
  /** AUDIT_RETENTION_DAYS: entries older are removed; 0 keeps them forever. */
  retentionDays: number;
  now?: () => number;
  /** How often the text filter's index catches up with the trail (ms). */
  followMs?: number;
  /** SQLite: the follower in a thread of its own from `start()` (default), or on the main thread (ADR 016). */
  followInThread?: boolean;
}

const HOUR = 3_600_000;

/**
 * The pages the log may hold (40 MB) before the main connection copies them back itself, while the follower
 * thread does so the rest of the time: the thread's copies cannot let the log start over under a steady stream
 * of commits (ADR 016's addendum), this can.
 */
export const WAL_BACKSTOP_PAGES = 10_000;

export function createAuditTrail(options: AuditTrailOptions): AuditTrail {
  const now = options.now ?? Date.now;
  const store = new SqlAuditStore(options.database.db, options.database.sqlite);
  const writer = new AuditWriter({
    append: (entries) => store.append(entries),
    logger: options.logger,
    now,
  });
  let timer: ReturnType<typeof setInterval> | null = null;
  let follower: ReturnType<typeof setInterval> | null = null;
  const index = indexFollower(store, options);
  const follow = index.follow;
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
    follow,
    start() {
      index.start();
      timer ??= setInterval(() => void sweep().catch(() => {}), HOUR);
      timer.unref?.();
      follower ??= setInterval(
        () =>
          void follow().catch((err: Error) =>
            options.logger.warn(
              { err: { message: err.message } },
              'audit search index not brought up to date',
            ),
          ),
        options.followMs ?? 1_000,
      );
      follower.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      if (follower) clearInterval(follower);
      timer = follower = null;
      await index.stop();
      await writer.stop();
    },
  };
}

/**
 * The index follows the trail off the answers' path: every second, passes of FOLLOW_BATCH entries until it has
 * caught up. On SQLite from `start()` in the follower's thread; otherwise here, the event loop let go between
 * passes. One catch-up at a time.
 */
function indexFollower(store: SqlAuditStore, options: AuditTrailOptions) {
  let thread: FollowerThread | null = null;
  // Set while stop() runs: a catch-up under way here ends after its pass.
  let stopping = false;
  const here = () =>
    catchUp(
      () => store.follow(),
      () => stopping,
    );
  let following: Promise<number> | null = null;
  // While the thread lives it copies the log back (follower-thread.ts) and the main connection only at
  // WAL_BACKSTOP_PAGES, which bounds the log; otherwise the main connection does it all, as SQLite does by
  // default: after a commit that leaves 1,000 pages in the log.
  const checkpointHere = (all: boolean) =>
    options.database.sqlite?.pragma(`wal_autocheckpoint = ${all ? 1000 : WAL_BACKSTOP_PAGES}`);
  return {
    follow(): Promise<number> {
      following ??= (thread ? thread.follow() : here()).finally(() => {
        following = null;
      });
      return following;
    },
    start() {
      const { files } = options.database;
      if (thread || !files || options.followInThread === false) return;
      const data = { database: files.database, searchIndex: files.searchIndex };
      thread = new FollowerThread(data, options.logger, () => {
        thread = null;
        checkpointHere(true);
      });
      checkpointHere(false);
    },
    /**
     * A catch-up under way ends after its pass (its transaction commits); what is left waits for the next start
     * (a catch-up from the trail's first entry, after an upgrade, takes seconds at a million entries).
     */
    async stop() {
      stopping = true;
      await thread?.stop();
      if (thread) checkpointHere(true);
      thread = null;
      await following?.catch(() => {});
      stopping = false;
    },
  };
}
