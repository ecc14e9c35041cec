import type { Property } from '../../../../contract/index.ts';
import { onAccountChange } from '../../../lib/account-scope.ts';
import { publishRateLimit } from '../../../lib/rate-limit-store.ts';
import type { Review, ReviewRow, ReviewSource } from '../model.ts';
import { openReviewStore, type ReviewStore } from './review-store.ts';
import type { PreparedRows } from './rows.ts';
import { createReviewRunner, type ReviewRunner, type RunnerDeps } from './runner.ts';

/**
 * The reviews of the signed-in account and the runners working on them. A runner outlives the page that
 * started it (navigate to search and back: the review kept going), and there is at most one per review.
 * Runners of another account are stopped as soon as a different account opens a review.
 */
export interface NewReview {
  accountId: string;
  accountName: string;
  name: string;
  source: ReviewSource;
  prepared: PreparedRows;
}

export interface NewAreaReview {
  accountId: string;
  accountName: string;
  name: string;
  source: ReviewSource;
  records: Property[];
  retrievedAt: string;
}

export type WorkspaceDeps = Omit<RunnerDeps, 'store' | 'onSessionEnded'> & { store: ReviewStore };

export class ReviewWorkspace {
  readonly #deps: WorkspaceDeps;
  readonly #runners = new Map<string, ReviewRunner>();
  readonly #opening = new Map<string, Promise<ReviewRunner | null>>();
  readonly #listeners = new Set<() => void>();
  #onSessionEnded: ((runner: ReviewRunner) => void) | null = null;

  constructor(deps: WorkspaceDeps) {
    this.#deps = deps;
  }

  get store() {
    return this.#deps.store;
  }

  /** What the page does when a runner meets an ended session (send the person to sign in). */
  setSessionEndedHandler(handler: (runner: ReviewRunner) => void) {
    this.#onSessionEnded = handler;
  }

  list(accountId: string) {
    return this.#deps.store.listReviews(accountId);
  }

  async create(input: NewReview): Promise<Review> {
    const now = Date.now();
    const review: Review = {
      id: newId(),
      accountId: input.accountId,
      name: input.name,
      source: input.source,
      state: input.prepared.rows.some((r) => r.outcome === 'pending') ? 'running' : 'done',
      createdAt: now,
      updatedAt: now,
      total: input.prepared.rows.length,
      skippedBlank: input.prepared.skippedBlank,
      accountName: input.accountName,
      finished: input.prepared.rows.filter((r) => r.outcome !== 'pending').length,
    };
    const rows: ReviewRow[] = input.prepared.rows.map((r) => ({ ...r, reviewId: review.id }));
    await this.#deps.store.createReview(review, rows);
    this.#emit();
    return review;
  }

  /** An area's records are matched rows already: the review is done when saved. */
  async createFromRecords(input: NewAreaReview): Promise<Review> {
    const now = Date.now();
    const review: Review = {
      id: newId(),
      accountId: input.accountId,
      name: input.name,
      source: input.source,
      state: 'done',
      createdAt: now,
      updatedAt: now,
      total: input.records.length,
      skippedBlank: 0,
      accountName: input.accountName,
      finished: input.records.length,
    };
    const rows: ReviewRow[] = input.records.map((property, index) => ({
      reviewId: review.id,
      index,
      input: property.address,
      outcome: 'matched',
      property,
      retrievedAt: input.retrievedAt,
      cached: false,
    }));
    await this.#deps.store.createReview(review, rows);
    this.#emit();
    return review;
  }

  /** The review's runner, started (a review that was running goes on), or null if the account has no such review. */
  open(accountId: string, id: string): Promise<ReviewRunner | null> {
    this.stopOthers(accountId);
    const live = this.#runners.get(id);
    if (live) return Promise.resolve(live);
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#load(accountId, id).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return opening;
  }

  async #load(accountId: string, id: string): Promise<ReviewRunner | null> {
    const review = await this.#deps.store.getReview(accountId, id);
    if (!review) return null;
    const rows = await this.#deps.store.getRows(id);
    const runner = createReviewRunner(review, rows, {
      ...this.#deps,
      onSessionEnded: (r) => this.#onSessionEnded?.(r),
    });
    this.#runners.set(id, runner);
    // The list of reviews hears of state changes; progress it reads from the runner itself.
    let last = '';
    runner.subscribe(() => {
      const kind = runner.getSnapshot().status.kind;
      if (kind !== last) {
        last = kind;
        this.#emit();
      }
    });
    runner.start();
    return runner;
  }

  /** The live runner of a review, if one is working on it in this page. */
  runner(id: string): ReviewRunner | undefined {
    return this.#runners.get(id);
  }

  async remove(accountId: string, id: string) {
    this.#runners.get(id)?.dispose();
    this.#runners.delete(id);
    await this.#deps.store.deleteReview(accountId, id);
    this.#emit();
  }

  /** The page now belongs to `accountId` (or to nobody): every other account's runner stops. */
  stopOthers(accountId: string | null) {
    for (const [id, runner] of this.#runners) {
      if (runner.accountId === accountId) continue;
      runner.dispose();
      this.#runners.delete(id);
    }
  }

  /** Signing out: stop the account's runners; a demo account's reviews are deleted too. */
  async forgetAccount(accountId: string, deleteData: boolean) {
    for (const [id, runner] of this.#runners) {
      if (runner.accountId !== accountId) continue;
      runner.dispose();
      this.#runners.delete(id);
    }
    if (deleteData) await this.#deps.store.deleteAccount(accountId);
    this.#emit();
  }

  /** Something about the reviews changed (created, deleted, a runner's state or progress). */
  subscribe(listener: () => void) {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #emit() {
    for (const l of this.#listeners) l();
  }
}

function newId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

let shared: ReviewWorkspace | null = null;

/** The page's workspace: IndexedDB, the browser's fetch and online events, the header's rate-limit meter. */
export function getReviewWorkspace(): ReviewWorkspace {
  shared ??= new ReviewWorkspace({
    store: openReviewStore(),
    isOnline: () => navigator.onLine !== false,
    onOnline: (listener) => {
      window.addEventListener('online', listener);
      return () => window.removeEventListener('online', listener);
    },
    onRateLimit: publishRateLimit,
  });
  const workspace = shared;
  // Another account signed in (here or in another tab, which shares the cookie), or nobody is: a runner must
  // never send one account's addresses under another's key.
  onAccountChange(({ accountId }) => workspace.stopOthers(accountId));
  return shared;
}

/** Signing out: the account's runners stop, and a demo key's reviews are deleted (nothing to do otherwise). */
export async function forgetReviewsOnSignOut(accountId: string, demo: boolean) {
  if (!demo && !shared) return;
  await getReviewWorkspace().forgetAccount(accountId, demo);
}

/** For tests: a workspace of their own. */
export function setReviewWorkspace(workspace: ReviewWorkspace | null) {
  shared = workspace;
}
