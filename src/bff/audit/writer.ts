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

interface Waiting {
  entry: NewAuditEntry;
  committed: () => void;
  refused: (err: ApiError) => void;
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
  #waiting: Waiting[] = [];
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
    return this.#waiting.length;
  }

  /** The last commit failed and the next has not succeeded yet (the database is away). */
  get failing(): boolean {
    return this.#failedAt !== null;
  }

  /** Throws audit_unavailable when an entry could not be kept now: call before doing what would be recorded. */
  assertWritable(): void {
    if (this.#stopped || this.#waiting.length >= this.#o.maxBuffer) throw auditUnavailable();
    if (this.#failedAt !== null && this.#now() - this.#failedAt < this.#o.retryMs) throw auditUnavailable();
  }

  /** Resolves when the entry is committed; rejects with audit_unavailable when it could not be. */
  record(entry: NewAuditEntry): Promise<void> {
    if (this.#stopped) return Promise.reject(auditUnavailable());
    return new Promise((committed, refused) => {
      this.#waiting.push({ entry, committed, refused });
      // The next turn of the event loop, so requests answered in this one share the transaction. From
      // node:timers, so a test's fake timers (which replace the global) do not hold commits back.
      if (!this.#committing)
        this.#committing = new Promise((go) => setImmediate(go)).then(() => this.#drain());
    });
  }

  /** Resolves once every entry recorded so far is committed or refused. */
  async flush(): Promise<void> {
    while (this.#committing) await this.#committing;
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const group = this.#waiting.splice(0, this.#o.batch);
      try {
        await this.#o.append(group.map((w) => w.entry));
      } catch (err) {
        this.failedFlushes++;
        if (this.#failedAt === null)
          this.#o.logger.error(
            { err: { message: (err as Error).message }, refused: group.length },
            'audit trail not written; its lookups are refused',
          );
        this.#failedAt = this.#now();
        for (const w of group) w.refused(auditUnavailable());
        continue;
      }
      this.written += group.length;
      this.#failedAt = null;
      for (const w of group) w.committed();
    }
    this.#committing = null;
  }

  /** Takes no more entries and waits for those recorded to be committed (or refused). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.flush();
  }
}
