import type { Cancellation } from '../cancel.ts';
import type { LeasedRow } from './leased-row.ts';

/*
 * What the worker holds, seen as the lease's fairness needs it (issue 26): a row waiting for its account's rate
 * limit is parked, not working, so it takes no slot of REVIEW_CONCURRENCY another account could use; an account
 * keeps at most PARKED_PER_ACCOUNT rows parked (enough to take each slot its limit grants at once) and is leased
 * no more until one goes; rows parked beyond that are given back, so that the account's other reviews (a
 * colleague's) are not queued behind them in the scheduler.
 */

/** Rows an account keeps waiting for its rate limit: one to go at its next slot, one behind it. */
export const PARKED_PER_ACCOUNT = 2;

/** A row in the worker's hands. */
export interface HeldRow {
  row: LeasedRow;
  cancel: Cancellation;
  /** The key lent to look it up, once a session was found: its rate limit is the one the row waits on. */
  keyHash?: string;
  /** Order in which the worker took it up. */
  seq: number;
  /** Given back (its account waits on its rate limit with enough rows already): finishing, no longer held. */
  released: boolean;
}

export interface Holding {
  heldByAccount: Map<string, number>;
  heldByReview: Map<string, number>;
  /** Rows waiting for their account's rate limit, per account. */
  parkedByAccount: Map<string, number>;
  /** Rows held and not waiting for a rate limit: what REVIEW_CONCURRENCY bounds. */
  working: number;
  /** New rows an account waiting on its rate limit may still take. */
  limitByAccount: Map<string, number>;
}

/**
 * `slotWaiters(keyHash)`: review requests of that key waiting for a slot (the scheduler's queue). Without it
 * every held row counts as working, as before.
 */
export function holding(rows: Iterable<HeldRow>, slotWaiters?: (keyHash: string) => number): Holding {
  const heldByAccount = new Map<string, number>();
  const heldByReview = new Map<string, number>();
  const keyed = new Map<string, { rows: number; keys: Set<string> }>();
  let held = 0;
  for (const h of rows) {
    if (h.released) continue;
    held++;
    const { accountId, reviewId } = h.row;
    heldByAccount.set(accountId, (heldByAccount.get(accountId) ?? 0) + 1);
    heldByReview.set(reviewId, (heldByReview.get(reviewId) ?? 0) + 1);
    if (h.keyHash === undefined) continue;
    const k = keyed.get(accountId) ?? { rows: 0, keys: new Set<string>() };
    k.rows++;
    k.keys.add(h.keyHash);
    keyed.set(accountId, k);
  }
  const parkedByAccount = new Map<string, number>();
  const limitByAccount = new Map<string, number>();
  let parked = 0;
  for (const [accountId, k] of slotWaiters ? keyed : []) {
    let waiting = 0;
    for (const key of k.keys) waiting += slotWaiters?.(key) ?? 0;
    const n = Math.min(k.rows, waiting);
    if (n === 0) continue;
    parkedByAccount.set(accountId, n);
    limitByAccount.set(accountId, Math.max(0, PARKED_PER_ACCOUNT - n));
    parked += n;
  }
  return { heldByAccount, heldByReview, parkedByAccount, working: held - parked, limitByAccount };
}

/**
 * Rows to give back: an account's parked rows beyond PARKED_PER_ACCOUNT, newest first. The scheduler serves an
 * account's waiters in order, so its newest rows are those still waiting (or not yet asking): rows already on
 * their way upstream are older and are not chosen.
 */
export function releasable(rows: Iterable<HeldRow>, h: Holding): HeldRow[] {
  const excess = new Map<string, number>();
  for (const [accountId, n] of h.parkedByAccount)
    if (n > PARKED_PER_ACCOUNT) excess.set(accountId, n - PARKED_PER_ACCOUNT);
  if (excess.size === 0) return [];
  const out: HeldRow[] = [];
  const newestFirst = [...rows]
    .filter((r) => !r.released && r.keyHash !== undefined)
    .sort((a, b) => b.seq - a.seq);
  for (const r of newestFirst) {
    const left = excess.get(r.row.accountId) ?? 0;
    if (left <= 0) continue;
    excess.set(r.row.accountId, left - 1);
    out.push(r);
  }
  return out;
}
