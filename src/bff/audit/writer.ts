import { setImmediate } from 'node:timers';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import type { NewAuditEntry } from '../stores/audit/audit-rows.ts';

export interface AuditWriterOptions {
  append: (entries: readonly NewAuditEntry[]) => Promise<void>;
  logger: Logger;
  /** Entries waiting for their commit at once; past it, lookups are refused rather than queued without end. */
  maxBuffer?: number;
  /** Entries written in one transaction. */
  batch?: number;
  /** After a failed commit, how long lookups are refused up front (ms) before one is let through to try again. */
  retryMs?: number;
  now?: () => number;
}

/** The trail cannot take another entry: the lookup is refused rather than made unrecorded. */
export const auditUnavailable = () =>
  new ApiError(
    503,
    'audit_unavailable',
    'PropLens cannot record lookups right now, so it makes none. Try again in a moment.',
    {
      retryAfterS: 5,
    },
  );

/**
 * Entries that will share one transaction (at most `batch`), and the one promise their lookups wait on: not a
 * promise and two callbacks for each entry, on every answer's path.
 */
interface Group {
  entries: NewAuditEntry[];
  done: Promise<void>;
  committed: () => void;
  refused: (err: ApiError) => void;
}

function newGroup(): Group {
  const group = { entries: [] } as unknown as Group;
  group.done = new Promise<void>((committed, refused) => {
    group.committed = committed;
    group.refused = refused;
  });
  return group;
}

/**
 * Group commit: `record` resolves once the entry is committed, so an answer that depends on it leaves only
 * after its evidence is kept (a process killed at any moment has answered nothing it did not record). Entries
 * recorded while a commit is under way, or in the same turn of the event loop, share the next transaction, so
 * the cost of a commit is spread over every lookup that waited for it. A commit that fails refuses its lookups
 * (503 audit_unavailable), and for `retryMs` after it new lookups are refused before they are made.
 */
export class AuditWriter {
  readonly #o: Required<Omit<AuditWriterOptions, 'logger' | 'now'>> & Pick<AuditWriterOptions, 'logger'>;
  readonly #now: () => number;
  /** Groups in the order they commit; only the last takes more entries. */
  #groups: Group[] = [];
  #waiting = 0;
  #committing: Promise<void> | null = null;
  #failedAt: number | null = null;
  #stopped = false;
  written = 0;
  failedFlushes = 0;

  constructor(options: AuditWriterOptions) {
    this.#o = { maxBuffer: 10_000, batch: 500, retryMs: 1_000, ...options };
    this.#now = options.now ?? Date.now;
  }

  /** Entries recorded and not yet committed (their lookups wait). */
  get waiting(): number {
    return this.#waiting;
  }

  /** The last commit failed and the next has not succeeded yet (the database is away). */
  get failing(): boolean {
    return this.#failedAt !== null;
  }

  /** Throws audit_unavailable when an entry could not be kept now: call before doing what would be recorded. */
  assertWritable(): void {
    if (this.#stopped || this.#waiting >= this.#o.maxBuffer) throw auditUnavailable();
    if (this.#failedAt !== null && this.#now() - this.#failedAt < this.#o.retryMs) throw auditUnavailable();
  }

  /** Resolves when the entry is committed; rejects with audit_unavailable when it could not be. */
  record(entry: NewAuditEntry): Promise<void> {
    if (this.#stopped) return Promise.reject(auditUnavailable());
    let group = this.#groups.at(-1);
    if (!group || group.entries.length >= this.#o.batch) {
      group = newGroup();
      this.#groups.push(group);
    }
    group.entries.push(entry);
    this.#waiting++;
    // The next turn of the event loop, so requests answered in this one share the transaction. From
    // node:timers, so a test's fake timers (which replace the global) do not hold commits back.
    if (!this.#committing) this.#committing = new Promise((go) => setImmediate(go)).then(() => this.#drain());
    return group.done;
  }

  /** Resolves once every entry recorded so far is committed or refused. */
  async flush(): Promise<void> {
    while (this.#committing) await this.#committing;
  }

  async #drain(): Promise<void> {
    for (let group = this.#groups.shift(); group; group = this.#groups.shift()) {
      const { entries } = group;
      this.#waiting -= entries.length;
      try {
        await this.#o.append(entries);
      } catch (err) {
        this.failedFlushes++;
        if (this.#failedAt === null)
          this.#o.logger.error(
            { err: { message: (err as Error).message }, refused: entries.length },
            'audit trail not written; its lookups are refused',
          );
        this.#failedAt = this.#now();
        group.refused(auditUnavailable());
        continue;
      }
      this.written += entries.length;
      this.#failedAt = null;
      group.committed();
    }
    this.#committing = null;
  }

  /** Takes no more entries and waits for those recorded to be committed (or refused). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.flush();
  }
}
