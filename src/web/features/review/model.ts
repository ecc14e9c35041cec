import type {
  Candidate,
  LookupError,
  LookupOutcome,
  MatchExplanation,
  PreviousResult,
  Property,
  ReviewRowOutcome,
  ReviewRun,
  ReviewStatus,
  RowFix,
} from '../../../contract/index.ts';

/**
 * The review workspace's data as the browser shows it. Reviews are kept and worked on the server (see
 * contract/review.ts); these are the shapes the results (summary, charts, table, comparison, export) read.
 */

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
  /** An uploaded CSV's own header, in order (the export joins back on it); empty for paste and area. */
  columns?: string[];
  /** Who started it: the key's fingerprint (never the key). */
  createdBy?: string;
  /** The server's state of the review. */
  status?: ReviewStatus;
  /** Runs over the rows, oldest first: "Check again" adds one. */
  runs?: ReviewRun[];
}

/** 'pending': not yet looked up (or sent back for a retry, or paused); 'not_asked': its run was cancelled first. */
export type RowOutcome = ReviewRowOutcome;

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
  /** An uploaded CSV row's own cells, in the order of the review's columns. */
  cells?: string[];
  /** From run 2 on: what the previous run said, present only when the record changed. */
  previous?: PreviousResult;
  /** A reviewer fixed the row in place: the address looked up instead of `input`, by whom and when. */
  fix?: RowFix;
}

export type { Candidate, LookupError, LookupOutcome, PreviousResult, Property, RowFix };
