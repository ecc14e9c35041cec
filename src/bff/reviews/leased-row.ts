/**
 * A row handed to this replica for a while: nobody else works it until the lease runs out. Its own module, so
 * that the worker and what it holds (worker-holding.ts) both name it without importing each other.
 */
export interface LeasedRow {
  reviewId: string;
  accountId: string;
  /** Who started the review (the key's fingerprint): the row goes on that key when a session holds it. */
  owner?: string;
  run: number;
  index: number;
  /** What is asked: the fixed address, the input, or the parcel number of a row without one; blank: nothing. */
  address: string;
  /**
   * The row's input normalised (null once a reviewer fixed the row): rows of the review with the same key share
   * the answer of the first one answered.
   */
  key?: string | null;
  /** "Check again" runs bypass the cache. */
  fresh: boolean;
  /** Earlier attempts that ended in a retryable failure. */
  attempts: number;
}
