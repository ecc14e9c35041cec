import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';

export interface AuditWriterOptions {
  append: (entries: readonly NewAuditEntry[]) => Promise<void>;
  logger: Logger;
  /** Entries held while the database is away; past it, lookups are refused rather than unrecorded. */
  maxBuffer?: number;
  /** Entries written in one batch. */
  batch?: number;
  /** How often the buffer is written (ms). */
  flushMs?: number;
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
 * Writes the audit trail off the request path: a lookup adds its entry to a bounded buffer and goes on; the
 * buffer is written in batches every `flushMs`. While the database is away entries wait (counted, never dropped);
 * when the buffer is full, `record` refuses (503 audit_unavailable), so nothing is answered unrecorded.
 */
export class AuditWriter {
  readonly #o: Required<Omit<AuditWriterOptions, 'logger'>> & { logger: Logger };
  #buffer: NewAuditEntry[] = [];
  #timer: ReturnType<typeof setInterval> | null = null;
  #flushing: Promise<void> | null = null;
  #failing = false;
  written = 0;
  failedFlushes = 0;

  constructor(options: AuditWriterOptions) {
    this.#o = { maxBuffer: 10_000, batch: 500, flushMs: 200, ...options };
  }

  get waiting(): number {
    return this.#buffer.length;
  }

  /** The last write failed and entries wait (the database is away). */
  get failing(): boolean {
    return this.#failing;
  }

  get full(): boolean {
    return this.#buffer.length >= this.#o.maxBuffer;
  }

  /** Throws audit_unavailable when the buffer is full: call before doing what would be recorded. */
  assertWritable(): void {
    if (this.full) throw auditUnavailable();
  }

  record(entry: NewAuditEntry): void {
    this.assertWritable();
    this.#buffer.push(entry);
    if (this.#buffer.length >= this.#o.batch) void this.flush();
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#o.flushMs);
    this.#timer.unref?.();
  }

  /** Writes what waits, a batch at a time; a failure keeps the entries for the next try. */
  flush(): Promise<void> {
    this.#flushing ??= this.#write().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #write(): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.slice(0, this.#o.batch);
      try {
        await this.#o.append(batch);
      } catch (err) {
        this.failedFlushes++;
        if (!this.#failing)
          this.#o.logger.error(
            { err: { message: (err as Error).message }, waiting: this.#buffer.length },
            'audit trail not written; entries wait',
          );
        this.#failing = true;
        return;
      }
      this.#buffer = this.#buffer.slice(batch.length);
      this.written += batch.length;
      this.#failing = false;
    }
  }

  /** Stops the timer and writes what waits (a last try). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }
}
