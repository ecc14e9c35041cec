import type { Lane } from '../../contract/index.ts';

/**
 * One account's upstream rate budget, as a pure state machine: what the upstream last told us
 * (X-RateLimit-Limit / -Remaining / -Reset), corrected by what we have sent since. `reserve` decides whether a
 * request may go now; `observe` folds an answer back in. Pure functions over plain data so that the memory
 * store runs them in-process and a shared store (Redis) can run the same rules atomically for several replicas.
 *
 * The rules (docs/decisions/004-upstream-scheduler.md):
 * - Never send a request certain to be refused: a slot is reserved before sending; none is left, wait for the
 *   reset (plus a margin for clock differences).
 * - Until the upstream's first answer we know nothing: one request probes, the rest wait for its headers.
 * - Interactive work takes any slot at once. Review work is spread evenly over what is left of the window (less
 *   its last second, as near as the reset is known), and
 *   leaves a small reserve for interactive requests until the window's last second, while they use it: with no
 *   interactive request for RESERVE_LEND_AFTER_MS the reserve is lent to review work too (a review alone gets
 *   the whole allowed rate), and the next interactive request, still taking the next slot free, takes it back.
 * - The upstream's headers are the truth, but answers overtake each other: within a window we keep the lowest
 *   Remaining it reported and subtract what is still in flight, so we never count a slot twice.
 *
 * stores/redis-budget.ts runs these same rules as a Lua script for replicas sharing Redis; its test runs one
 * table of cases (and random sequences) on both stores, so a rule changed here and not there fails it.
 */
export interface BudgetState {
  /** The upstream has sent rate-limit headers at least once. */
  known: boolean;
  /** The upstream answered without rate-limit headers: no pacing possible, a small concurrency cap instead. */
  noHeaders: boolean;
  limit: number;
  /** Slots we may still use in this window: the upstream's figure less what we have sent since. */
  remaining: number;
  /** Epoch ms on our clock when the current window ends. */
  resetAt: number;
  /** When the previous window ended: answers stamped with it are late and say nothing of this window. */
  previousResetAt: number;
  /** The window was refilled on our own estimate, not yet confirmed by an answer. */
  provisional: boolean;
  /** Longest time-to-reset ever reported: the window's length, as near as we can tell. */
  windowMs: number;
  /** Lowest Remaining the upstream reported in this window. */
  minSeen: number;
  /** Requests sent and not yet answered. */
  inflight: number;
  /** Review work may take its next slot from this time (even pacing). */
  nextReviewAt: number;
  /** After a 429: nothing goes before this time. */
  blockedUntil: number;
  /** When an interactive request last took a slot (0: never): until RESERVE_LEND_AFTER_MS on, the reserve is held. */
  interactiveAt: number;
}

/** What one upstream answer said of the rate limit; null fields: the header was absent or unreadable. */
export interface RateObservation {
  limit: number;
  remaining: number;
  resetAt: number;
}

export type AttemptResult =
  /** No HTTP answer (connection refused, timeout, cut short): frees the slot, tells nothing. */
  { kind: 'none' } | { kind: 'answer'; status: number; rate: RateObservation | null };

export type Decision =
  | { ok: true }
  /** retryAt null: wait until an answer in flight comes back. resetAt: when the window refills, if known. */
  | { ok: false; retryAt: number | null; resetAt: number | null };

// The constants are exported for the shared store's script (stores/redis-budget.ts), which runs these rules
// in Redis: one set of numbers for both.

/** Clocks differ: use a refilled window only this long after its reset. */
export const RESET_MARGIN_MS = 250;
/** Two resets this close are the same window (a reset given as "seconds from now" jitters by up to 1 s). */
export const SAME_WINDOW_MS = 1000;
/** Share of each window that review work leaves for interactive requests. */
export const INTERACTIVE_RESERVE = 0.02;
/** In the window's last second the reserve goes to review work too, so nothing is wasted. */
export const RESERVE_RELEASE_MS = 1000;
/** With no interactive request for this long, review work may use the interactive reserve too. */
export const RESERVE_LEND_AFTER_MS = 5_000;
/** Review pacing lets a request go this early (ms): the clock's resolution, so spacings under it add up. */
export const PACE_TOLERANCE_MS = 1;
/** Concurrency when the upstream states no limit at all. */
export const NO_HEADERS_CONCURRENCY = 4;
/** Without any observation of the window, assume a minute. */
export const DEFAULT_WINDOW_MS = 60_000;
/** Longest window we believe in. */
export const MAX_WINDOW_MS = 24 * 3_600_000;
/** A 429 that names no reset: wait this long. */
export const UNKNOWN_RESET_WAIT_MS = 1000;

export function initialBudget(): BudgetState {
  return {
    known: false,
    noHeaders: false,
    limit: 0,
    remaining: 0,
    resetAt: 0,
    previousResetAt: 0,
    provisional: false,
    windowMs: 0,
    minSeen: 0,
    inflight: 0,
    nextReviewAt: 0,
    blockedUntil: 0,
    interactiveAt: 0,
  };
}

/** May a request of this lane go now? Mutates `s` (reserving the slot) only when it may. */
export function reserve(s: BudgetState, lane: Lane, now: number): Decision {
  if (now < s.blockedUntil) return { ok: false, retryAt: s.blockedUntil, resetAt: s.blockedUntil };
  if (!s.known) {
    const cap = s.noHeaders ? NO_HEADERS_CONCURRENCY : 1;
    if (s.inflight >= cap) return { ok: false, retryAt: null, resetAt: null };
    s.inflight++;
    if (lane === 'interactive') s.interactiveAt = now;
    return { ok: true };
  }
  if (now >= s.resetAt + RESET_MARGIN_MS) refill(s, now);
  if (s.remaining <= 0) {
    return { ok: false, retryAt: s.resetAt + RESET_MARGIN_MS, resetAt: s.resetAt };
  }
  if (lane === 'review') {
    const left = s.resetAt - now;
    const lent = left <= RESERVE_RELEASE_MS || now - s.interactiveAt >= RESERVE_LEND_AFTER_MS;
    const held = lent ? 0 : Math.min(Math.ceil(s.limit * INTERACTIVE_RESERVE), s.limit - 1);
    const usable = s.remaining - held;
    if (usable <= 0) {
      return { ok: false, retryAt: s.resetAt - RESERVE_RELEASE_MS, resetAt: s.resetAt };
    }
    // Paced on a virtual schedule (GCRA): each grant moves the schedule one spacing on from where it was, and a
    // request may go up to a clock tick early. Paced from `now` instead, a spacing under the clock's millisecond
    // let one review request go a millisecond whatever the limit: 600 a second against an unlimited upstream
    // (issue 26, bench `throughput`).
    if (now < s.nextReviewAt - PACE_TOLERANCE_MS)
      return { ok: false, retryAt: s.nextReviewAt - PACE_TOLERANCE_MS, resetAt: null };
    // Spread over the window less its last second: the reset is known to a second (whole seconds in the
    // headers), and slots still unused when the upstream refills are lost; in the last second, no spacing.
    s.nextReviewAt = Math.max(s.nextReviewAt, now) + Math.max(0, left - RESERVE_RELEASE_MS) / usable;
  } else {
    s.interactiveAt = now;
  }
  s.remaining--;
  s.inflight++;
  return { ok: true };
}

/** The window ended with no answer to tell us the next one: assume it is full again, subtracting what is in flight. */
function refill(s: BudgetState, now: number) {
  const window = s.windowMs > 0 ? s.windowMs : DEFAULT_WINDOW_MS;
  s.previousResetAt = s.resetAt;
  let next = s.resetAt + window;
  if (next <= now) next = now + window;
  s.resetAt = next;
  s.remaining = Math.max(0, s.limit - s.inflight);
  s.minSeen = s.limit;
  s.provisional = true;
  s.nextReviewAt = now;
}

/** Folds an attempt's outcome back in: the slot is freed, and the upstream's headers correct our count. */
export function observe(s: BudgetState, result: AttemptResult, now: number): void {
  s.inflight = Math.max(0, s.inflight - 1);
  if (result.kind === 'none') return;
  const { status, rate } = result;
  if (rate === null) {
    if (status === 429) {
      s.blockedUntil = Math.max(s.blockedUntil, now + UNKNOWN_RESET_WAIT_MS);
      if (s.known) s.remaining = 0;
    } else if (!s.known) {
      s.noHeaders = true;
    }
    return;
  }
  s.known = true;
  s.noHeaders = false;
  s.limit = rate.limit;
  s.windowMs = Math.max(s.windowMs, Math.min(rate.resetAt - now, MAX_WINDOW_MS));
  if (status === 429) {
    // The upstream's word wins, whatever we estimated: nothing until its reset.
    s.blockedUntil = Math.max(s.blockedUntil, rate.resetAt);
    s.resetAt = Math.max(rate.resetAt, now);
    s.remaining = 0;
    s.minSeen = 0;
    s.provisional = false;
    return;
  }
  if (
    s.resetAt === 0 ||
    rate.resetAt > s.resetAt + SAME_WINDOW_MS ||
    (s.provisional && rate.resetAt > s.previousResetAt + SAME_WINDOW_MS)
  ) {
    // A new window (or the first): its figure, less what we have sent that it may not count yet.
    if (!s.provisional && s.resetAt !== 0) s.previousResetAt = s.resetAt;
    const fromHeader = rate.remaining - s.inflight;
    s.remaining = Math.max(0, s.provisional ? Math.min(s.remaining, fromHeader) : fromHeader);
    s.resetAt = rate.resetAt;
    s.minSeen = rate.remaining;
    s.provisional = false;
    if (s.nextReviewAt === 0) s.nextReviewAt = now;
    return;
  }
  if (rate.resetAt <= s.previousResetAt + SAME_WINDOW_MS && rate.resetAt < s.resetAt - SAME_WINDOW_MS) return; // late answer
  // The same window. Once nothing is in flight, every request we sent has been counted: the lowest figure
  // reported is exact. Until then, subtract what is in flight (it may not have been counted yet).
  s.minSeen = Math.min(s.minSeen, rate.remaining);
  s.remaining = Math.max(
    0,
    s.inflight === 0 ? s.minSeen : Math.min(s.remaining, rate.remaining - s.inflight),
  );
}

/** What to show: the budget as of `now` (after its reset a window is full again, whatever we last heard). */
export function view(s: BudgetState | undefined, now: number): RateView | null {
  if (!s?.known) return null;
  return {
    limit: s.limit,
    remaining: now >= s.resetAt ? s.limit : Math.max(0, s.remaining),
    resetAt: s.resetAt,
    windowMs: s.windowMs,
  };
}

/**
 * The window's length in whole seconds as people and the plan mean it. It is read from whole-second resets (and a
 * Date header in whole seconds corrects the clocks' skew), so a minute's window is seen as 59 to 62 s: within 2 s
 * of whole minutes it is those, within 1 s of a multiple of 5 s it is that, else the nearest second. A client then
 * says "60 lookups a minute" and counts down from 60 s, never 61.
 */
export function plainWindowS(windowMs: number): number {
  const seconds = windowMs / 1000;
  const minutes = Math.round(seconds / 60) * 60;
  if (minutes > 0 && Math.abs(seconds - minutes) <= 2) return minutes;
  const fives = Math.round(seconds / 5) * 5;
  if (fives > 0 && Math.abs(seconds - fives) <= 1) return fives;
  return Math.max(1, Math.round(seconds));
}

export interface RateView {
  limit: number;
  remaining: number;
  resetAt: number;
  /** 0 until observed. */
  windowMs: number;
}

/**
 * Where budgets live. Memory for one process; a shared implementation (Redis) runs the same rules atomically
 * so that several replicas together never exceed an account's limit.
 */
export interface BudgetStore {
  reserve(key: string, lane: Lane, now: number): Promise<Decision>;
  observe(key: string, result: AttemptResult, now: number): Promise<void>;
  view(key: string, now: number): Promise<RateView | null>;
  /**
   * The same two rules answered synchronously, for a store in this process: the scheduler then grants a free
   * slot and takes back a finished one without a promise chain per request (the uncached hot path). A remote
   * store leaves it out.
   */
  readonly now?: {
    reserve(key: string, lane: Lane, now: number): Decision;
    observe(key: string, result: AttemptResult, now: number): void;
  };
}
