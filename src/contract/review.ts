import * as z from 'zod/mini';
import { ApiErrorCode, Candidate, Property } from './api.ts';
import {
  Confidence,
  displayName,
  MAX_ADDRESS_LENGTH,
  text,
  wholeNumber,
  wholeNumberParam,
} from './common.ts';
import { ReviewSignOff, RowDecision } from './decisions.ts';
import { MatchExplanation } from './match.ts';
import { NotFoundReason } from './upstream.ts';

/**
 * The review workspace's BFF API: many addresses looked up at once, on the server, paced by the BFF to the
 * upstream's rate limit (the durable reviews below).
 */

/** What became of one looked-up address. unit_not_found counts as not_found (error.code tells them apart). */
export const LookupOutcome = z.enum(['matched', 'not_found', 'ambiguous', 'failed']);
export type LookupOutcome = z.infer<typeof LookupOutcome>;

export const LookupError = z.object({
  code: ApiErrorCode,
  message: z.string(),
  /** With rate_limited: when to send the row again (ISO date-time). */
  resetAt: z.optional(z.string()),
  /** With ambiguous: how many candidates there are in all, when the service says (more than are listed). */
  total: z.optional(z.int().check(z.nonnegative())),
  /** With not_found: why, when the service can tell (the search screen says it in the same words). */
  reason: z.optional(NotFoundReason),
});
export type LookupError = z.infer<typeof LookupError>;

/** Codes of a failed lookup that are worth sending again later (the rest need a change to the input). */
export const RETRYABLE_LOOKUP_CODES: readonly ApiErrorCode[] = [
  'rate_limited',
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_invalid',
  'store_unavailable',
  'internal',
];

/**
 * Header the browser sets on work it does for a review (lookups are always review work; an area walk's
 * /api/properties/search pages set it too). Interactive requests, without it, go ahead of review work.
 */
export const LANE_HEADER = 'X-PropLens-Lane';
export type Lane = 'interactive' | 'review';

/*
 * Durable reviews (server-side). The browser creates a review, uploads its rows in chunks, and the BFF works
 * them in the background in the review lane; every session of the account lists and opens them, progress
 * arrives as server-sent events, and "Check again" adds a run over the same rows.
 */

/** Most rows in one review, and most bytes of the input file it came from. */
export const MAX_REVIEW_ROWS = 100_000;
export const MAX_REVIEW_BYTES = 20 * 1024 * 1024;
/** Most rows in one uploaded chunk (a 20 MB file is never one request body). */
export const MAX_CHUNK_ROWS = 2_000;
/** Most columns kept of an uploaded CSV, and the longest cell. */
export const MAX_REVIEW_COLUMNS = 200;
export const MAX_CELL_LENGTH = 2_000;
/** The longest parcel number (APN) kept with a row. */
export const MAX_PARCEL_LENGTH = 100;

export const ReviewKind = z.enum(['paste', 'csv', 'area', 'sample']);
export type ReviewKind = z.infer<typeof ReviewKind>;

/**
 * uploading: rows still arriving; running: being worked; waiting: running but no signed-in session of the
 * account is there to lend its key ("Waiting for a sign-in"); paused: a reviewer paused it (no row is asked
 * until someone resumes it); done: every row of the latest run has an outcome; cancelled: a reviewer cancelled
 * it (finished: its answers so far kept, the rest never asked).
 */
export const ReviewStatus = z.enum(['uploading', 'running', 'waiting', 'paused', 'done', 'cancelled']);
export type ReviewStatus = z.infer<typeof ReviewStatus>;

export const CreateReviewRequest = z.object({
  /** A random id per start click: a retried create returns the same review, two tabs make two reviews. */
  clientToken: z
    .string()
    .check(z.regex(/^[A-Za-z0-9_-]{8,64}$/, 'clientToken: 8-64 letters, digits, - or _')),
  name: displayName('name').check(
    z.trim(),
    z.minLength(1, 'Name the review.'),
    z.maxLength(200, 'At most 200 characters.'),
  ),
  kind: ReviewKind,
  /** The file name or the area searched, for the list of reviews. */
  origin: z.optional(text('origin').check(z.maxLength(300))),
  /** An uploaded CSV's header, in order (its cells come back in the export); empty for paste and area. */
  columns: z
    .array(text('columns').check(z.maxLength(MAX_CELL_LENGTH)))
    .check(z.maxLength(MAX_REVIEW_COLUMNS, `At most ${MAX_REVIEW_COLUMNS} columns.`)),
  totalRows: z
    .int()
    .check(
      z.positive('The review has no rows.'),
      z.maximum(MAX_REVIEW_ROWS, `At most ${MAX_REVIEW_ROWS} rows.`),
    ),
  /** Blank input lines that were skipped, reported with the review. */
  skippedBlank: z.optional(wholeNumber('skippedBlank')),
});
export type CreateReviewRequest = z.infer<typeof CreateReviewRequest>;

/**
 * A row as uploaded: what to look up, and nothing else a client could claim. Strict: a row carrying an answer
 * (`imported`, say) is refused, for only the BFF's own lookups answer a row.
 */
export const ReviewInputRow = z.strictObject({
  /**
   * What is looked up. Empty when the row has no address: it stays a row of the review (answered `no_address`, or
   * looked up by its parcel number), so the export joins back to the file 1:1.
   */
  address: text('address').check(z.maxLength(MAX_CELL_LENGTH)),
  /** The CSV row's own cells, in the order of the review's columns. */
  cells: z.optional(
    z.array(text('cells').check(z.maxLength(MAX_CELL_LENGTH))).check(z.maxLength(MAX_REVIEW_COLUMNS)),
  ),
  /**
   * Where the row is in what was brought, 1-based as a spreadsheet numbers it: a file's line (the header is 1,
   * blank lines counted) or a pasted line. The export carries it, so every row joins back to its input.
   */
  sourceRow: z.optional(z.int().check(z.positive(), z.maximum(10_000_000))),
  /** The row's parcel number (APN), from a mapped parcel column: looked up when the row has no usable address. */
  parcel: z.optional(text('parcel').check(z.maxLength(MAX_PARCEL_LENGTH))),
});
export type ReviewInputRow = z.infer<typeof ReviewInputRow>;

export const ReviewChunkRequest = z.object({
  /** 0-based; a chunk sent again with the same index replaces nothing and adds nothing. */
  index: wholeNumber('index'),
  /** Index of the chunk's first row in the review. */
  firstRow: wholeNumber('firstRow'),
  rows: z
    .array(ReviewInputRow)
    .check(
      z.minLength(1, 'A chunk has at least one row.'),
      z.maxLength(MAX_CHUNK_ROWS, `At most ${MAX_CHUNK_ROWS} rows a chunk.`),
    ),
  /** The last chunk: the review starts once it and every chunk before it are in. */
  last: z.boolean(),
});
export type ReviewChunkRequest = z.infer<typeof ReviewChunkRequest>;

export const ReviewCounts = z.object({
  total: z.int().check(z.nonnegative()),
  done: z.int().check(z.nonnegative()),
  matched: z.int().check(z.nonnegative()),
  notFound: z.int().check(z.nonnegative()),
  ambiguous: z.int().check(z.nonnegative()),
  failed: z.int().check(z.nonnegative()),
});
export type ReviewCounts = z.infer<typeof ReviewCounts>;

export const ReviewRun = z.object({
  /** 1 for the first run; "Check again" adds the next. */
  number: z.int().check(z.positive()),
  startedAt: z.string(),
  finishedAt: z.nullable(z.string()),
  counts: ReviewCounts,
});
export type ReviewRun = z.infer<typeof ReviewRun>;

export const ReviewSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: ReviewKind,
  origin: z.nullable(z.string()),
  /** Who started it: the key's fingerprint (never the key). */
  createdBy: z.string(),
  /**
   * While its rows go on a colleague's key (the owner's is not signed in): that key's fingerprint; null while
   * they go on the owner's own.
   */
  carriedBy: z.optional(z.nullable(z.string())),
  createdAt: z.string(),
  status: ReviewStatus,
  columns: z.array(z.string()),
  totalRows: z.int().check(z.nonnegative()),
  /** Rows received so far (below totalRows while uploading). */
  receivedRows: z.int().check(z.nonnegative()),
  skippedBlank: z.int().check(z.nonnegative()),
  /** Oldest first; the last is the one shown. */
  runs: z.array(ReviewRun),
  /** Signed off (and perhaps approved); null or absent while it is not. */
  signOff: z.optional(z.nullable(ReviewSignOff)),
});
export type ReviewSummary = z.infer<typeof ReviewSummary>;

export const ReviewListResponse = z.object({ reviews: z.array(ReviewSummary) });
export type ReviewListResponse = z.infer<typeof ReviewListResponse>;

/** What a row said in the previous run, when it says something else now. */
export const PreviousResult = z.object({
  outcome: LookupOutcome,
  propertyId: z.nullable(z.string()),
  source: z.nullable(z.string()),
  confidence: z.nullable(Confidence),
  lastVerified: z.nullable(z.string()),
});
export type PreviousResult = z.infer<typeof PreviousResult>;

/**
 * A row a reviewer fixed in place: the address looked up instead of the input (which stays as given), from a
 * candidate ("Use this one") or typed ("Look up again"). Later runs ("Check again") look up this address.
 */
export const RowFix = z.object({
  address: z.string(),
  how: z.enum(['candidate', 'edited']),
  /** Who fixed it: the key's fingerprint (never the key). */
  by: z.string(),
  /** ISO date-time. */
  at: z.string(),
  /** The run it was made in: that run's answer is the fix, not a change of the service's record. */
  run: z.optional(z.int().check(z.positive())),
});
export type RowFix = z.infer<typeof RowFix>;

export const FixRowRequest = z.object({
  address: text('address').check(
    z.trim(),
    z.minLength(1, 'Enter the address to look up.'),
    z.maxLength(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`),
  ),
  /** "Use this one": the candidate's property id; the row is fixed only if the address finds that property. */
  candidateId: z.optional(text('candidateId').check(z.minLength(1), z.maxLength(200))),
});
export type FixRowRequest = z.infer<typeof FixRowRequest>;

/** The longest reason a reviewer gives for excluding a row. */
export const MAX_EXCLUSION_REASON = 500;

/**
 * A row a reviewer excluded from the review: it keeps its place (the export still has its line, marked), but
 * counts in none of the review's figures, and later runs do not look it up. Undone by "Include again".
 */
export const RowExclusion = z.object({
  /** Why, in the reviewer's words ("Office address, not collateral"); may be empty. */
  reason: z.string(),
  /** Who excluded it: the key's fingerprint (never the key). */
  by: z.string(),
  /** ISO date-time. */
  at: z.string(),
});
export type RowExclusion = z.infer<typeof RowExclusion>;

/** PUT /api/reviews/:id/rows/:index/exclusion (DELETE includes the row again). */
export const ExcludeRowRequest = z.object({
  reason: z.optional(
    text('reason').check(
      z.trim(),
      z.maxLength(MAX_EXCLUSION_REASON, `A reason is at most ${MAX_EXCLUSION_REASON} characters.`),
    ),
  ),
});
export type ExcludeRowRequest = z.infer<typeof ExcludeRowRequest>;

/**
 * A row's outcome in a run: a lookup's, or pending (not answered yet: waiting, being asked, or paused), or
 * not_asked (its run was cancelled before it was asked; the export marks it so).
 */
export const ReviewRowOutcome = z.enum([
  'pending',
  'matched',
  'not_found',
  'ambiguous',
  'failed',
  'not_asked',
]);
export type ReviewRowOutcome = z.infer<typeof ReviewRowOutcome>;

/** A row of a review as every view of it reads it (the rows API, its events, a fix's answer). */
export const ReviewRowResult = z.object({
  /** Position in the input, 0-based: rows keep their input order whatever order they finish in. */
  index: z.int().check(z.nonnegative()),
  /** The address as given (joined from columns for a CSV with street / city / state / ZIP). */
  input: z.string(),
  /** Present once a reviewer fixed the row in place: the address looked up instead of `input`. */
  fix: z.optional(RowFix),
  /** Present while a reviewer has the row excluded from the review (its answer, if any, stays beside it). */
  excluded: z.optional(RowExclusion),
  /** The reviewer's current decision on the row (issue 30); absent while it has none. */
  decision: z.optional(RowDecision),
  /** An uploaded CSV row's own cells, in the order of the review's columns. */
  cells: z.optional(z.array(z.string())),
  /** Where the row is in what was brought (1-based line; see ReviewInputRow). */
  sourceRow: z.optional(z.int().check(z.positive())),
  /** The parcel number uploaded with the row, looked up when it has no address. */
  parcel: z.optional(z.string()),
  outcome: ReviewRowOutcome,
  property: z.optional(Property),
  /**
   * How the record's address relates to the address looked up (null: as given). Present with every property:
   * the BFF works it out with the answer, so the browser never runs the match algorithm.
   */
  match: z.optional(z.nullable(MatchExplanation)),
  candidates: z.optional(z.array(Candidate)),
  error: z.optional(LookupError),
  /** Answered from the cache. */
  cached: z.optional(z.boolean()),
  /** ISO date-time the BFF answered. */
  retrievedAt: z.optional(z.string()),
  /** Run 2 and later: the previous run's answer, present only when the record changed. */
  previous: z.optional(PreviousResult),
  /** Order of completion within the review (for "rows since"). */
  seq: z.int().check(z.nonnegative()),
  /**
   * Present (true) on a page read with `attributes=0`: the property's attributes are cut to its state (the
   * table names a source's agency by it). The row alone (`cursor` = index - 1, `limit=1`) has the whole record.
   */
  brief: z.optional(z.literal(true)),
});
export type ReviewRowResult = z.infer<typeof ReviewRowResult>;

/**
 * POST /api/reviews/:id/rows/:index/fix. `fixed`: the address found one property (the candidate chosen, if one
 * was) and the row now holds it (`row`, as every view of the review will see it). Not fixed: the row is as it
 * was, and `attempt` says what the address found instead (no match, several, or another property than the
 * candidate), with candidates to choose from. A lookup that could not be made (rate limit, service away)
 * answers its error status and changes nothing.
 */
export const FixRowResponse = z.object({
  fixed: z.boolean(),
  row: ReviewRowResult,
  attempt: z.optional(
    z.object({
      outcome: LookupOutcome,
      candidates: z.optional(z.array(Candidate)),
      error: z.optional(LookupError),
    }),
  ),
});
export type FixRowResponse = z.infer<typeof FixRowResponse>;

export const ReviewRowsResponse = z.object({
  rows: z.array(ReviewRowResult),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.nullable(z.string()),
  /**
   * The review's row sequence as the page was read (before its rows): a live view resumes the event stream from
   * its first page's, so a row that changed while later pages were read is sent again (hostile review H16-2).
   */
  lastSeq: z.optional(z.int().check(z.nonnegative())),
});
export type ReviewRowsResponse = z.infer<typeof ReviewRowsResponse>;

/** Most rows in one page of GET /api/reviews/:id/rows. */
export const MAX_ROWS_PAGE = 5_000;

/**
 * GET /api/reviews/:id/rows: which run (default the latest), from where, how many, and how much of each row.
 * `cursor` is a row index (the page holds the rows after it; `nextCursor` is the last row's), so a client that
 * knows the run's total may read pages side by side. The review page's table reads with `cells=0` (each CSV
 * row's own cells left out: the export has them; an eighth of a row's bytes) and `attributes=0` (each
 * property's attributes cut to its state, the row marked `brief`: two fifths of a row's bytes); it reads a row
 * alone, whole, when a reviewer opens or compares it.
 */
export const ReviewRowsQuery = z.object({
  run: z.optional(wholeNumberParam('run').check(z.positive('run: 1 or more'))),
  cursor: z.optional(
    z.string().check(z.regex(/^\d{1,9}$/, 'cursor: a row index, e.g. the nextCursor of the previous page')),
  ),
  limit: z.optional(
    wholeNumberParam('limit').check(
      z.positive('limit: 1 or more'),
      z.maximum(MAX_ROWS_PAGE, `limit: at most ${MAX_ROWS_PAGE}`),
    ),
  ),
  cells: z.optional(
    z.enum(['0', '1'], 'cells: 0 (without each row’s own cells) or 1 (with them, the default)'),
  ),
  attributes: z.optional(
    z.enum(
      ['0', '1'],
      'attributes: 0 (each property’s attributes cut to its state) or 1 (whole, the default)',
    ),
  ),
});

/** GET /api/reviews/:id/events?cells&attributes: the `rows` events' rows, as the rows page gives them. */
export const ReviewEventsQuery = z.pick(ReviewRowsQuery, { cells: true, attributes: true });

/**
 * GET /api/reviews/:id/events (text/event-stream). `summary`: the review's state and counts, sent first and on
 * every change; `rows`: rows answered since the last event (idempotent by index: apply in any order);
 * `deleted`: the review is gone (someone of the account deleted it). The stream resumes from `Last-Event-ID`.
 */
export const ReviewRowsEvent = z.object({ rows: z.array(ReviewRowResult) });
export type ReviewRowsEvent = z.infer<typeof ReviewRowsEvent>;
export type ReviewEvent =
  | { type: 'summary'; data: ReviewSummary }
  | { type: 'rows'; data: ReviewRowsEvent }
  | { type: 'deleted'; data: Record<string, never> };
