import {
  ApiErrorBody,
  addressKey,
  LookupResult,
  MAX_LOOKUP_BATCH,
  type RateLimit,
  RETRYABLE_LOOKUP_CODES,
} from '../../../../contract/index.ts';
import type { LookupError, Review, ReviewRow, ReviewState } from '../model.ts';
import type { ReviewStore } from './review-store.ts';

/**
 * Runs one review: sends its pending rows to POST /api/reviews/lookups in batches, reads the NDJSON answers
 * as they stream in, writes each to IndexedDB as it arrives, and tells the page at most a few times a
 * second (never once per row). The BFF paces every row to the upstream's rate limit; the runner's job is to
 * keep it fed (two batches in flight), to wait out rows the BFF hands back as rate limited, and to stop
 * without losing anything when the person pauses, the network goes, or the session ends.
 */

/** Why a review is not running although it has rows left. */
export type PauseReason = 'user' | 'offline' | 'session' | 'error' | 'storage';

export type RunStatus =
  | { kind: 'running' }
  | { kind: 'paused'; reason: PauseReason; retryAt?: number }
  | { kind: 'done' }
  | { kind: 'cancelled' };

export interface OutcomeCounts {
  matched: number;
  not_found: number;
  ambiguous: number;
  failed: number;
  pending: number;
}

export interface RunSnapshot {
  review: Review;
  /** Input order, a fresh array per snapshot; a row object is replaced (never mutated) when it changes. */
  rows: ReviewRow[];
  counts: OutcomeCounts;
  /** Rows with an outcome (N of "N of M"). */
  finished: number;
  status: RunStatus;
  /** Some rows wait for the rate limit to reset until then (epoch ms); null when none do. */
  waitingUntil: number | null;
  rateLimit: RateLimit | null;
  /** Lookups answered lately (cached ones excluded), per minute. */
  recentPerMinute: number;
  /** Lookups still to send: a duplicated address counts once. */
  lookupsLeft: number;
  /** Failed rows worth sending again. */
  retryable: number;
}

export interface RunnerDeps {
  store: ReviewStore;
  fetch?: typeof fetch;
  now?: () => number;
  isOnline?: () => boolean;
  /** Calls back when the browser is online again; returns the unsubscribe. */
  onOnline?: (listener: () => void) => () => void;
  /** The session ended (401): the page sends the person to sign in. */
  onSessionEnded?: (runner: ReviewRunner) => void;
  /** Every rate limit the BFF reports (for the header meter). */
  onRateLimit?: (rateLimit: RateLimit) => void;
  /** The page hears of changes at most this often (ms). */
  notifyMs?: number;
  /** Batches in flight at once: two, so the BFF has the next batch queued while one drains. */
  maxBatches?: number;
}

export const LOOKUPS_PATH = '/api/reviews/lookups';
/** After this many batches that ended without an answer for a row, the row fails (retryable). */
const MAX_MISSES = 3;
/** Consecutive server errors before the review pauses for the person to decide. */
const MAX_SERVER_ERRORS = 5;
/** Longest wait we accept from a resetAt (untrusted): a wrong clock must not park a row for a day. */
const MAX_RESET_WAIT_MS = 60 * 60_000;
/** One NDJSON line is one record: anything this long without a line break is not our answer. */
const MAX_LINE_CHARS = 1024 * 1024;
const RATE_WINDOW_MS = 60_000;

const isRetryable = (row: ReviewRow) =>
  row.outcome === 'failed' && row.error !== undefined && RETRYABLE_LOOKUP_CODES.includes(row.error.code);

export function createReviewRunner(review: Review, rows: ReviewRow[], deps: RunnerDeps): ReviewRunner {
  return new ReviewRunner(review, rows, deps);
}

interface Batch {
  keys: string[];
  controller: AbortController;
}

export class ReviewRunner {
  readonly id: string;
  readonly accountId: string;
  #review: Review;
  #rows: ReviewRow[];
  readonly #deps: Required<Pick<RunnerDeps, 'store' | 'now' | 'notifyMs' | 'maxBatches'>> & RunnerDeps;
  readonly #fetch: typeof fetch;
  /** Address key -> the rows (indexes) that share it: one lookup answers them all. */
  readonly #groups = new Map<string, number[]>();
  /** Keys with a pending row, in input order. */
  readonly #pending = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #notBefore = new Map<string, number>();
  readonly #misses = new Map<string, number>();
  readonly #batches = new Set<Batch>();
  readonly #counts: OutcomeCounts = { matched: 0, not_found: 0, ambiguous: 0, failed: 0, pending: 0 };
  #status: RunStatus = { kind: 'paused', reason: 'user' };
  #rateLimit: RateLimit | null = null;
  #completions: number[] = [];
  #runningSince = 0;
  #serverErrors = 0;
  #wakeTimer: ReturnType<typeof setTimeout> | null = null;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #notifyTimer: ReturnType<typeof setTimeout> | null = null;
  #lastReviewSave = 0;
  #saving: Promise<void> = Promise.resolve();
  #snapshot: RunSnapshot;
  readonly #listeners = new Set<() => void>();
  readonly #stopOnline: () => void;
  #disposed = false;

  constructor(review: Review, rows: ReviewRow[], deps: RunnerDeps) {
    this.id = review.id;
    this.accountId = review.accountId;
    this.#review = review;
    this.#rows = rows;
    this.#deps = { now: Date.now, notifyMs: 250, maxBatches: 2, ...deps };
    // The global fetch, called as a function (a bare reference loses its receiver in some browsers).
    this.#fetch = deps.fetch ?? ((input, init) => fetch(input, init));
    for (const row of rows) {
      this.#counts[row.outcome]++;
      const key = addressKey(row.input);
      const group = this.#groups.get(key);
      if (group) group.push(row.index);
      else this.#groups.set(key, [row.index]);
      if (row.outcome === 'pending') this.#pending.add(key);
    }
    this.#stopOnline = deps.onOnline?.(() => this.#online()) ?? (() => {});
    this.#snapshot = this.#makeSnapshot();
  }

  /** Picks up where the review stopped: one that was running (even when the page closed) goes on. */
  start() {
    if (this.#review.state === 'running') this.#go();
    else if (this.#review.state === 'done') this.#status = { kind: 'done' };
    else if (this.#review.state === 'cancelled') this.#status = { kind: 'cancelled' };
    else this.#status = { kind: 'paused', reason: 'user' };
    this.#notifyNow();
  }

  pause() {
    if (this.#status.kind !== 'running' && this.#status.kind !== 'paused') return;
    this.#stop({ kind: 'paused', reason: 'user' });
    this.#saveReview('paused');
  }

  resume() {
    if (this.#status.kind !== 'paused') return;
    // Answers the browser refused to store are stored now (they are no longer pending, so never asked again).
    if (this.#status.reason === 'storage')
      void this.#write(this.#rows.filter((r) => r.outcome !== 'pending'));
    this.#serverErrors = 0;
    this.#saveReview('running');
    this.#go();
  }

  /** After signing in again: a review paused because the session ended goes on by itself. */
  resumeAfterSignIn() {
    if (this.#status.kind === 'paused' && this.#status.reason === 'session') this.#go();
  }

  cancel() {
    if (this.#status.kind === 'done' || this.#status.kind === 'cancelled') return;
    this.#stop({ kind: 'cancelled' });
    this.#saveReview('cancelled');
  }

  /** Failed rows with a retryable code go back to pending, and the review runs again. */
  retryFailed() {
    const changed: ReviewRow[] = [];
    for (const [i, row] of this.#rows.entries()) {
      if (!isRetryable(row)) continue;
      const { error: _e, retrievedAt: _r, cached: _c, property: _p, candidates: _k, ...rest } = row;
      const next: ReviewRow = { ...rest, outcome: 'pending' };
      this.#rows[i] = next;
      this.#counts.failed--;
      this.#counts.pending++;
      const key = addressKey(row.input);
      this.#pending.add(key);
      this.#misses.delete(key);
      changed.push(next);
    }
    if (changed.length === 0) return;
    this.#write(changed);
    this.#serverErrors = 0;
    this.#saveReview('running');
    this.#go();
  }

  /** Stops all work without changing what is stored (another account signed in, or sign-out). */
  dispose() {
    this.#disposed = true;
    this.#abortAll();
    this.#clearTimers();
    this.#stopOnline();
    this.#listeners.clear();
  }

  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  getSnapshot = () => this.#snapshot;

  /** For tests and the page: resolves when nothing is being written. */
  settled() {
    return this.#saving;
  }

  // --- the loop ---------------------------------------------------------------------------------------

  #go() {
    if (this.#disposed) return;
    this.#status = { kind: 'running' };
    this.#runningSince = this.#deps.now();
    this.#completions = [];
    this.#pump();
    this.#notifyNow();
  }

  #pump() {
    if (this.#status.kind !== 'running' || this.#disposed) return;
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = null;
    if (this.#pending.size === 0 && this.#batches.size === 0) {
      this.#status = { kind: 'done' };
      this.#saveReview('done');
      this.#notifyNow();
      return;
    }
    if (this.#deps.isOnline && !this.#deps.isOnline()) {
      this.#connectionLost();
      return;
    }
    const now = this.#deps.now();
    while (this.#batches.size < this.#deps.maxBatches) {
      const keys: string[] = [];
      for (const key of this.#pending) {
        if (this.#inFlight.has(key) || (this.#notBefore.get(key) ?? 0) > now) continue;
        keys.push(key);
        if (keys.length === MAX_LOOKUP_BATCH) break;
      }
      if (keys.length === 0) break;
      this.#send(keys);
    }
    const wait = this.#waitingUntil(now);
    if (wait !== null) this.#wakeTimer = setTimeout(() => this.#pump(), wait - now);
    this.#scheduleNotify();
  }

  #waitingUntil(now: number): number | null {
    let until = Number.POSITIVE_INFINITY;
    for (const [key, at] of this.#notBefore) {
      if (at > now && at < until && this.#pending.has(key) && !this.#inFlight.has(key)) until = at;
    }
    return Number.isFinite(until) ? until : null;
  }

  #send(keys: string[]) {
    const batch: Batch = { keys, controller: new AbortController() };
    this.#batches.add(batch);
    for (const k of keys) this.#inFlight.add(k);
    void this.#runBatch(batch).finally(() => {
      this.#batches.delete(batch);
      for (const k of keys) this.#inFlight.delete(k);
      this.#pump();
    });
  }

  async #runBatch(batch: Batch) {
    const addresses = batch.keys.map((key) => this.#inputOf(key));
    let res: Response;
    try {
      res = await this.#fetch(LOOKUPS_PATH, {
        method: 'POST',
        headers: {
          'X-Requested-With': 'proplens',
          'Content-Type': 'application/json',
          Accept: 'application/x-ndjson',
        },
        body: JSON.stringify({ addresses }),
        credentials: 'same-origin',
        signal: batch.controller.signal,
      });
    } catch {
      if (!batch.controller.signal.aborted) this.#connectionLost();
      return;
    }
    if (res.status === 401) {
      this.#sessionEnded();
      return;
    }
    if (!res.ok || !res.body) {
      await this.#refused(batch, res);
      return;
    }
    const answered = new Set<number>();
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        if (buffer.length > MAX_LINE_CHARS) throw new Error('line too long');
        await this.#apply(batch, lines, answered);
      }
      buffer += decoder.decode();
      await this.#apply(batch, [buffer], answered);
    } catch {
      if (!batch.controller.signal.aborted) {
        // Cut off mid-stream: what was answered is kept; the rest go again.
        void reader.cancel().catch(() => {});
        this.#connectionLost();
      }
      return;
    }
    if (batch.controller.signal.aborted) return;
    this.#serverErrors = 0;
    // A row the stream never answered goes again, a few times, then fails (retryable) rather than loop.
    const unanswered: string[] = [];
    for (const [i, key] of batch.keys.entries()) {
      if (answered.has(i) || !this.#pending.has(key)) continue;
      const misses = (this.#misses.get(key) ?? 0) + 1;
      this.#misses.set(key, misses);
      if (misses >= MAX_MISSES) unanswered.push(key);
    }
    if (unanswered.length > 0) {
      await this.#settle(unanswered, {
        code: 'internal',
        message: 'No answer came for this address. Retry failed rows to try again.',
      });
    }
  }

  /** The whole batch was refused before any row was answered. */
  async #refused(batch: Batch, res: Response) {
    const body = ApiErrorBody.safeParse(await res.json().catch(() => null));
    const error = body.success ? body.data.error : null;
    const now = this.#deps.now();
    if (error?.code === 'rate_limited' || res.status === 429) {
      const at = this.#resetTime(error?.resetAt, now);
      for (const key of batch.keys) this.#notBefore.set(key, at);
      return;
    }
    if (error && res.status < 500 && !RETRYABLE_LOOKUP_CODES.includes(error.code)) {
      // A refusal that sending again would not change: each row gets it as its outcome (nothing loops).
      await this.#settle(batch.keys, { code: error.code, message: error.message });
      return;
    }
    this.#serverErrors++;
    if (this.#serverErrors >= MAX_SERVER_ERRORS) {
      this.#stop({ kind: 'paused', reason: 'error' });
      return;
    }
    const backoff = Math.min(30_000, 1000 * 2 ** this.#serverErrors);
    for (const key of batch.keys) this.#notBefore.set(key, now + backoff);
  }

  #resetTime(resetAt: string | undefined, now: number): number {
    const at = resetAt ? Date.parse(resetAt) : Number.NaN;
    if (!Number.isFinite(at)) return now + 10_000;
    return Math.min(now + MAX_RESET_WAIT_MS, Math.max(now + 250, at));
  }

  async #apply(batch: Batch, lines: string[], answered: Set<number>) {
    const changed: ReviewRow[] = [];
    const now = this.#deps.now();
    for (const line of lines) {
      if (line.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        continue;
      }
      const parsed = LookupResult.safeParse(json);
      if (!parsed.success) continue;
      const result = parsed.data;
      const key = batch.keys[result.index];
      if (key === undefined || answered.has(result.index)) continue;
      answered.add(result.index);
      if (result.rateLimit) {
        this.#rateLimit = result.rateLimit;
        this.#deps.onRateLimit?.(result.rateLimit);
      }
      const code = result.error?.code;
      if (result.outcome === 'failed' && code === 'rate_limited') {
        // Not an outcome: the row waits for the window to reset and goes again.
        this.#notBefore.set(key, this.#resetTime(result.error?.resetAt, now));
        continue;
      }
      if (code === 'unauthenticated') {
        this.#sessionEnded();
        break;
      }
      if (!result.cached) this.#completions.push(now);
      this.#resolve(key, changed, (row) => {
        const next: ReviewRow = {
          reviewId: row.reviewId,
          index: row.index,
          input: row.input,
          outcome: result.outcome,
          retrievedAt: result.retrievedAt,
          cached: result.cached,
        };
        if (result.property) next.property = result.property;
        if (result.match !== undefined) next.match = result.match;
        if (result.candidates) next.candidates = result.candidates;
        if (result.error) next.error = result.error;
        return next;
      });
    }
    await this.#write(changed);
    this.#scheduleNotify();
  }

  /** Gives every pending row of `keys` the same failed outcome. */
  async #settle(keys: string[], error: LookupError) {
    const changed: ReviewRow[] = [];
    const retrievedAt = new Date(this.#deps.now()).toISOString();
    for (const key of keys) {
      this.#resolve(key, changed, (row) => ({ ...row, outcome: 'failed', error, retrievedAt }));
    }
    await this.#write(changed);
    this.#scheduleNotify();
  }

  #resolve(key: string, changed: ReviewRow[], next: (row: ReviewRow) => ReviewRow) {
    this.#pending.delete(key);
    this.#notBefore.delete(key);
    this.#misses.delete(key);
    for (const i of this.#groups.get(key) ?? []) {
      const row = this.#rows[i];
      if (row?.outcome !== 'pending') continue;
      const updated = next(row);
      this.#rows[i] = updated;
      this.#counts.pending--;
      this.#counts[updated.outcome]++;
      changed.push(updated);
    }
  }

  async #write(rows: ReviewRow[]) {
    if (rows.length === 0) return;
    const write = this.#saving.then(() => this.#deps.store.putRows(rows));
    this.#saving = write.catch(() => {});
    try {
      await write;
    } catch {
      // The browser would not keep the results (storage full or blocked): stop before any more are lost.
      this.#stop({ kind: 'paused', reason: 'storage' });
    }
  }

  #inputOf(key: string): string {
    // A pending row's input: a row refused before sending may share the key but is never sent.
    for (const i of this.#groups.get(key) ?? []) {
      const row = this.#rows[i];
      if (row?.outcome === 'pending') return row.input;
    }
    return key;
  }

  // --- stopping and going on -------------------------------------------------------------------------------

  #stop(status: RunStatus) {
    this.#status = status;
    this.#abortAll();
    this.#clearTimers();
    this.#notifyNow();
  }

  #abortAll() {
    for (const b of this.#batches) b.controller.abort();
  }

  #clearTimers() {
    for (const t of [this.#wakeTimer, this.#retryTimer]) if (t) clearTimeout(t);
    this.#wakeTimer = null;
    this.#retryTimer = null;
  }

  #connectionLost() {
    if (this.#status.kind !== 'running') return;
    this.#serverErrors++;
    const retryAt = this.#deps.now() + Math.min(60_000, 2000 * 2 ** Math.min(this.#serverErrors, 5));
    this.#stop({ kind: 'paused', reason: 'offline', retryAt });
    // `online` fires when the browser knew it was offline; a server that went away only comes back on a try.
    this.#retryTimer = setTimeout(() => this.#online(), retryAt - this.#deps.now());
  }

  #online() {
    if (this.#status.kind === 'paused' && this.#status.reason === 'offline') this.#go();
  }

  #sessionEnded() {
    if (this.#status.kind === 'paused' && this.#status.reason === 'session') return;
    this.#stop({ kind: 'paused', reason: 'session' });
    // The stored state stays "running": after signing in again the review goes on by itself.
    this.#deps.onSessionEnded?.(this);
  }

  #saveReview(state: ReviewState) {
    this.#review = { ...this.#review, state, updatedAt: this.#deps.now(), finished: this.#finished() };
    this.#lastReviewSave = this.#deps.now();
    const review = this.#review;
    this.#saving = this.#saving.then(() => this.#deps.store.putReview(review)).catch(() => {});
  }

  #finished() {
    return this.#review.total - this.#counts.pending;
  }

  // --- telling the page ------------------------------------------------------------------------------------

  #scheduleNotify() {
    if (this.#notifyTimer || this.#disposed) return;
    this.#notifyTimer = setTimeout(() => this.#notifyNow(), this.#deps.notifyMs);
  }

  #notifyNow() {
    if (this.#notifyTimer) clearTimeout(this.#notifyTimer);
    this.#notifyTimer = null;
    // The list of reviews shows progress: keep the stored count roughly current without a write per row.
    if (this.#status.kind === 'running' && this.#deps.now() - this.#lastReviewSave > 2000) {
      this.#saveReview('running');
    }
    this.#snapshot = this.#makeSnapshot();
    for (const l of this.#listeners) l();
  }

  #makeSnapshot(): RunSnapshot {
    const now = this.#deps.now();
    this.#completions = this.#completions.filter((t) => now - t < RATE_WINDOW_MS);
    const span = Math.min(RATE_WINDOW_MS, Math.max(5000, now - this.#runningSince));
    return {
      review: this.#review,
      rows: this.#rows.slice(),
      counts: { ...this.#counts },
      finished: this.#finished(),
      status: this.#status,
      waitingUntil: this.#status.kind === 'running' ? this.#waitingUntil(now) : null,
      rateLimit: this.#rateLimit,
      recentPerMinute: (this.#completions.length * 60_000) / span,
      lookupsLeft: this.#pending.size,
      retryable: this.#rows.filter(isRetryable).length,
    };
  }
}
