/*
 * Who gets the next leased rows: round-robin over accounts, then over an account's reviews, first come first
 * served within a review (the database's order: review_results_next). Pure, so the order is tested without a
 * database and the same on SQLite and PostgreSQL.
 */

/** A run of a review with rows to work, as the queue found it. */
export interface OpenRun {
  reviewId: string;
  run: number;
  accountId: string;
  /** Who started the review (the key's fingerprint): its rows go on that key when it is signed in. */
  createdBy?: string;
}

/** What the worker tells the queue of its own hands, so that the round-robin starts from the fewest. */
export interface LeaseShares {
  /** Rows this replica holds of each account now. */
  heldByAccount?: ReadonlyMap<string, number>;
  /** Rows this replica holds of each review now. */
  heldByReview?: ReadonlyMap<string, number>;
  /** At most this many new rows of an account (one waiting on its own rate limit takes no more than it can use). */
  limitByAccount?: ReadonlyMap<string, number>;
}

/** How the queue reads a run's next due rows: one run at a time, or (`many`) several in one query. */
export interface LeaseFetch<Row> {
  one(run: OpenRun, n: number): Promise<Row[]>;
  many?(asks: readonly { open: OpenRun; n: number }[]): Promise<Row[][]>;
}

/** The same, answered at once (SQLite's prepared statements, inside one synchronous transaction). */
export interface LeaseFetchNow<Row> {
  one(run: OpenRun, n: number): Row[];
  many?(asks: readonly { open: OpenRun; n: number }[]): Row[][];
}

/** What the round-robin asks for next: one run's rows, or several runs' at once. */
type Ask = { one: OpenRun; n: number } | { many: { open: OpenRun; n: number }[] };

interface Turn {
  key: string;
  held: number;
  /** When it was last served (a tick of the queue's clock): ties go to the one served longest ago. */
  served: number;
}

interface ReviewTurn<Row> extends Turn {
  open: OpenRun;
  /** Rows read for it; those before `next` are picked (or skipped). */
  buffer: Row[];
  next: number;
  exhausted: boolean;
}

interface AccountTurn<Row> extends Turn {
  left: number;
  reviews: ReviewTurn<Row>[];
}

/**
 * Remembers when each account and review was last served, across lease calls, so that ties (nobody holds
 * anything, e.g. rows answered from the cache at once) still go round rather than to the same one each time.
 */
export class LeaseOrder {
  #tick = 0;
  readonly #served = new Map<string, number>();

  /**
   * Up to `limit` rows, one at a time to the account holding fewest (then served longest ago), and within it to
   * the review holding fewest. `fetch.one(run, n)` gives a run's next due rows in order (fewer: it has no more);
   * `fetch.many`, when the database can, gives several runs' at once: the turns are then walked once without
   * rows to learn how many each run gets, those are read in one query, and only a run that had fewer than
   * planned sends another round.
   */
  async pick<Row>(runs: readonly OpenRun[], limit: number, shares: LeaseShares, fetch: LeaseFetch<Row>) {
    const picking = this.#picking<Row>(runs, limit, shares, fetch.many !== undefined);
    let step = picking.next();
    while (!step.done)
      step = picking.next(
        'many' in step.value
          ? await (fetch.many as NonNullable<LeaseFetch<Row>['many']>)(step.value.many)
          : await fetch.one(step.value.one, step.value.n),
      );
    return step.value;
  }

  /** `pick`, with rows read at once: the whole lease runs in one synchronous transaction. */
  pickNow<Row>(
    runs: readonly OpenRun[],
    limit: number,
    shares: LeaseShares,
    fetch: LeaseFetchNow<Row>,
  ): Row[] {
    const picking = this.#picking<Row>(runs, limit, shares, fetch.many !== undefined);
    let step = picking.next();
    while (!step.done)
      step = picking.next(
        'many' in step.value
          ? (fetch.many as NonNullable<LeaseFetchNow<Row>['many']>)(step.value.many)
          : fetch.one(step.value.one, step.value.n),
      );
    return step.value;
  }

  /** The picking itself, asking for rows by yielding (so that it runs the same whether rows come at once or not). */
  *#picking<Row>(
    runs: readonly OpenRun[],
    limit: number,
    shares: LeaseShares,
    many: boolean,
  ): Generator<Ask, Row[], Row[] | Row[][]> {
    const buffers = new Map<string, { rows: Row[]; planned: number; exhausted: boolean }>();
    if (many) {
      const plan = this.#plan(this.#turns<null>(runs, shares), limit);
      const asks = [...plan.values()];
      const got = (asks.length > 0 ? yield { many: asks } : []) as Row[][];
      for (const [i, ask] of asks.entries()) {
        const rows = got[i] ?? [];
        const planned = { rows, planned: rows.length, exhausted: rows.length < ask.n };
        buffers.set(`r:${ask.open.reviewId}:${ask.open.run}`, planned);
      }
    }
    const accounts = this.#turns<Row>(runs, shares);
    for (const account of accounts)
      for (const review of account.reviews) {
        const planned = buffers.get(review.key);
        if (planned) Object.assign(review, { buffer: planned.rows, next: 0, exhausted: planned.exhausted });
      }
    const picked: Row[] = [];
    const turns = accounts.flatMap((a) => [a as Turn, ...a.reviews]);
    let tick = this.#tick;
    // Per row: no array built, nothing shifted, nothing remembered (a lease of a cached review takes hundreds of
    // rows, and this loop ran for each): when each turn was served is remembered once, after the loop.
    while (picked.length < limit) {
      const account = fewestOpen(accounts);
      if (!account) break;
      const review = fewest(account.reviews) as ReviewTurn<Row>;
      if (review.next === review.buffer.length && !review.exhausted) {
        const want = Math.min(limit - picked.length, account.left);
        // A planned run asked again (a run before it had fewer rows than planned): its planned rows, still
        // pending in this transaction, come first in line, so they are skipped.
        const skip = buffers.get(review.key)?.planned ?? 0;
        const rows = (yield { one: review.open, n: want + skip }) as Row[];
        review.buffer = rows;
        review.next = Math.min(skip, rows.length);
        review.exhausted = rows.length - review.next < want;
      }
      if (review.next === review.buffer.length) {
        account.reviews.splice(account.reviews.indexOf(review), 1);
        continue;
      }
      picked.push(review.buffer[review.next++] as Row);
      account.held++;
      account.left--;
      review.held++;
      account.served = review.served = ++tick;
    }
    this.#tick = tick;
    for (const turn of turns) if (turn.served > 0) this.#served.set(turn.key, turn.served);
    this.#forget(runs);
    return picked;
  }

  /** How many rows each run would give if every run had enough: the round-robin walked without rows. */
  #plan(accounts: AccountTurn<null>[], limit: number): Map<string, { open: OpenRun; n: number }> {
    const taken = new Map<string, { open: OpenRun; n: number }>();
    let tick = this.#tick;
    for (let picked = 0; picked < limit; picked++) {
      const account = fewestOpen(accounts);
      if (!account) break;
      const review = fewest(account.reviews) as ReviewTurn<null>;
      taken.set(review.key, { open: review.open, n: (taken.get(review.key)?.n ?? 0) + 1 });
      account.held++;
      account.left--;
      review.held++;
      account.served = review.served = ++tick;
    }
    return taken;
  }

  #turns<Row>(runs: readonly OpenRun[], shares: LeaseShares): AccountTurn<Row>[] {
    const byAccount = new Map<string, AccountTurn<Row>>();
    for (const open of runs) {
      let account = byAccount.get(open.accountId);
      if (!account) {
        const key = `a:${open.accountId}`;
        account = {
          key,
          held: shares.heldByAccount?.get(open.accountId) ?? 0,
          served: this.#served.get(key) ?? 0,
          left: shares.limitByAccount?.get(open.accountId) ?? Number.POSITIVE_INFINITY,
          reviews: [],
        };
        byAccount.set(open.accountId, account);
      }
      const key = `r:${open.reviewId}:${open.run}`;
      account.reviews.push({
        key,
        open,
        held: shares.heldByReview?.get(open.reviewId) ?? 0,
        served: this.#served.get(key) ?? 0,
        buffer: [],
        next: 0,
        exhausted: false,
      });
    }
    return [...byAccount.values()];
  }

  /** Keeps the memory to what is open now (reviews end; accounts leave). */
  #forget(runs: readonly OpenRun[]) {
    if (this.#served.size <= 4 * runs.length + 64) return;
    const open = new Set(runs.flatMap((r) => [`a:${r.accountId}`, `r:${r.reviewId}:${r.run}`]));
    for (const key of this.#served.keys()) if (!open.has(key)) this.#served.delete(key);
  }
}

/** `fewest` of the accounts that may take a row more (within their limit, with a review left). */
function fewestOpen<Row>(accounts: readonly AccountTurn<Row>[]): AccountTurn<Row> | undefined {
  let best: AccountTurn<Row> | undefined;
  for (const a of accounts) if (a.left > 0 && a.reviews.length > 0 && (!best || fewer(a, best))) best = a;
  return best;
}

const fewer = (t: Turn, than: Turn) => t.held < than.held || (t.held === than.held && t.served < than.served);

/** The turn holding fewest rows, then the one served longest ago. */
function fewest<T extends Turn>(turns: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const t of turns) if (!best || fewer(t, best)) best = t;
  return best;
}
