import type {
  Candidate,
  LookupError,
  LookupOutcome,
  MatchExplanation,
  Property,
} from '../../../contract/index.ts';

/**
 * The review workspace's data as the browser keeps it (IndexedDB, per account). Shared by the parts that
 * run a review (start, runner, progress, storage) and the parts that show one (summary, charts, table,
 * comparison, export).
 */

export type ReviewState = 'running' | 'paused' | 'done' | 'cancelled';

/** Where the rows came from. */
export type ReviewSource =
  | { kind: 'paste' }
  | { kind: 'file'; fileName: string }
  | { kind: 'area'; query: string; cap: number }
  | { kind: 'sample' };

export interface Review {
  id: string;
  /** SessionResponse.accountId: another account on this browser never sees the review. */
  accountId: string;
  name: string;
  source: ReviewSource;
  state: ReviewState;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** Rows in the review (blank input lines are not rows). */
  total: number;
  /** Blank lines skipped when the review was made, reported, not kept. */
  skippedBlank: number;
  /** The account name at the time, for "retrieved ... by ...". */
  accountName: string;
  /** Rows with an outcome when the review was last saved (the list of reviews shows it); absent: unknown. */
  finished?: number;
}

/** 'pending': not yet looked up (or sent back for a retry). */
export type RowOutcome = LookupOutcome | 'pending';

export interface ReviewRow {
  reviewId: string;
  /** Position in the input, 0-based; rows keep their input order whatever order they finish in. */
  index: number;
  /** The address as given (joined from columns for a CSV with street / city / state / ZIP). */
  input: string;
  outcome: RowOutcome;
  property?: Property;
  /** How the record's address relates to the input, as the BFF worked it out; absent in rows kept before it did. */
  match?: MatchExplanation | null;
  candidates?: Candidate[];
  error?: LookupError;
  /** ISO date-time the BFF answered. */
  retrievedAt?: string;
  /** Answered from the cache. */
  cached?: boolean;
}

export type { Candidate, LookupError, LookupOutcome, Property };
