import {
  ApiErrorCode,
  Confidence,
  LookupOutcome,
  MATCH_QUALITIES,
  MatchPart,
  NotFoundReason,
  type ReviewRowResult,
  type ReviewRun,
  type ReviewSignOff,
  type ReviewStatus,
  type ReviewSummary,
  RowDecision,
  RowExclusion,
  RowFix,
} from '../../../contract/index.ts';
import type { ReviewRunsTable, ReviewsTable } from '../../db/schema.ts';
import { StoredAnswer } from '../../reviews/look-up-row.ts';
import { previousIfChanged } from './changes.ts';

/* Database rows as the API speaks them. */

export function toSummary(review: ReviewsTable, runs: ReviewRunsTable[]): ReviewSummary {
  const latest = runs.at(-1);
  // No run until every row is in, or an upload is cancelled part-way (its rows received then have a run).
  const status: ReviewStatus = !latest
    ? 'uploading'
    : latest.finished_at === null
      ? latest.paused_at === null
        ? 'running'
        : 'paused'
      : latest.cancelled_at === null
        ? 'done'
        : 'cancelled';
  return {
    id: review.id,
    name: review.name,
    kind: review.kind as ReviewSummary['kind'],
    origin: review.origin,
    createdBy: review.created_by,
    carriedBy: review.carried_by ?? null,
    createdAt: new Date(Number(review.created_at)).toISOString(),
    status,
    columns: JSON.parse(review.columns) as string[],
    totalRows: review.total_rows,
    receivedRows: review.received_rows,
    skippedBlank: review.skipped_blank,
    runs: runs.map(toRun),
    signOff: toSignOff(review),
  };
}

/** A review's sign-off as the API gives it (on the summary; the evidence manifest reads it). */
export function toSignOff(review: ReviewsTable): ReviewSignOff | null {
  if (review.signed_off_at == null || !review.signed_off_by) return null;
  const iso = (ms: number) => new Date(Number(ms)).toISOString();
  return {
    by: review.signed_off_by,
    at: iso(review.signed_off_at),
    run: Number(review.signed_off_run ?? 0),
    reason: review.signed_off_reason ?? null,
    approved:
      review.approved_at != null && review.approved_by
        ? { by: review.approved_by, at: iso(review.approved_at) }
        : null,
  };
}

function toRun(u: ReviewRunsTable): ReviewRun {
  return {
    number: u.run,
    startedAt: new Date(Number(u.started_at)).toISOString(),
    finishedAt: u.finished_at === null ? null : new Date(Number(u.finished_at)).toISOString(),
    counts: {
      total: u.total,
      done: u.done,
      matched: u.matched,
      notFound: u.not_found,
      ambiguous: u.ambiguous,
      failed: u.failed,
    },
  };
}

export interface JoinedRow {
  row_index: number;
  address: string;
  cells: string | null;
  fix: string | null;
  /** Absent in rows read before migration 0011's column was selected (tests' hand-made rows). */
  excluded?: string | null;
  /** Absent in rows read before migration 0015's column was selected (tests' hand-made rows). */
  decision?: string | null;
  /** Absent in rows read before migration 0008's columns were selected (none now; tests' hand-made rows). */
  source_row?: number | null;
  parcel?: string | null;
  state: string | null;
  result: string | null;
  seq: number | null;
  previous: string | null;
}

function readFix(text: string | null): RowFix | undefined {
  if (!text) return undefined;
  const parsed = RowFix.safeParse(parsedJson(text));
  return parsed.success ? parsed.data : undefined;
}

/** A row's exclusion as written; one that does not read as one still excludes the row (the mark is what counts). */
function readExclusion(text: string | null | undefined): RowExclusion | undefined {
  if (!text) return undefined;
  const parsed = RowExclusion.safeParse(parsedJson(text));
  return parsed.success ? parsed.data : { reason: '', by: '', at: '' };
}

/** A row's current decision as written; one that does not read as one is left off (the history keeps it). */
function readDecision(text: string | null | undefined): RowDecision | undefined {
  if (!text) return undefined;
  const parsed = RowDecision.safeParse(parsedJson(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * A row's stored answer as the rows API gives it: checked against the schema (which also drops keys it does not
 * know). An answer that is not one, or not JSON, reads as no answer: the row shows as not answered, never as a
 * failed request.
 */
export function readResult(text: string | null): StoredAnswer | undefined {
  const value = parsedJson(text);
  if (value === undefined) return undefined;
  const parsed = StoredAnswer.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * A row's stored answer as the export reads it (ADR 008): the same acceptance as the schema, written as plain
 * checks, for 100,000 rows at a time (the schema's parse copies every object and cost the export a quarter of
 * its CPU). An answer that fails reads as no answer, as in the rows API; keys the schema does not know are
 * kept, and the export never prints them.
 */
export function readStoredAnswer(text: string | null): StoredAnswer | undefined {
  const value = parsedJson(text);
  return isStoredAnswer(value) ? value : undefined;
}

/** How the worker's answers end (`lookUpRow` writes these two last): what differs between rows of one record. */
const TAIL = /,"cached":(true|false),"retrievedAt":"([^"\\]*)"}$/y;
/** Distinct records an export remembers (a few MB), then forgets all and starts again. */
const REMEMBERED = 2_000;

/**
 * `readStoredAnswer` for a whole export: the rows of a tape that resolve to the same record (the same answer
 * but for when it was retrieved and whether from the cache) share one parse and check. The text before the
 * answer's last two fields is the key; those two are read from the text itself. A valid answer's text ends the
 * top-level object there (a quote inside a string is escaped), so another row's text with the same key and a
 * tail of the same form reads as the remembered answer with that row's two fields.
 */
export function storedAnswerReader(): (text: string | null) => StoredAnswer | undefined {
  const known = new Map<string, StoredAnswer>();
  return (text) => {
    if (!text) return undefined;
    const at = text.lastIndexOf(',"cached":');
    TAIL.lastIndex = at;
    const tail = at === -1 ? null : TAIL.exec(text);
    if (!tail) return readStoredAnswer(text);
    const key = text.slice(0, at);
    const same = known.get(key);
    if (same) return { ...same, cached: tail[1] === 'true', retrievedAt: tail[2] as string };
    const answer = readStoredAnswer(text);
    if (answer) {
      if (known.size >= REMEMBERED) known.clear();
      known.set(key, answer);
    }
    return answer;
  };
}

function parsedJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const OUTCOMES = new Set<unknown>(LookupOutcome.options);
const CONFIDENCES = new Set<unknown>(Confidence.options);
const ERROR_CODES = new Set<unknown>(ApiErrorCode.options);
const NOT_FOUND_REASONS = new Set<unknown>(NotFoundReason.options);
const PARTS = new Set<unknown>(MatchPart.options);
const CHANGE_KINDS = new Set<unknown>(['corrected', 'added', 'ignored']);
const QUALITIES = new Set<unknown>(MATCH_QUALITIES);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** PropertyAttributes' fields by type (a strict object: any other key fails it). */
const ATTRIBUTES = new Map<string, 'text' | 'number' | 'date' | 'other'>([
  ...(
    [
      'streetNumber',
      'streetName',
      'unit',
      'city',
      'state',
      'zip',
      'county',
      'parcelNumber',
      'propertyType',
    ] as const
  ).map((k) => [k, 'text'] as const),
  ...(
    [
      'yearBuilt',
      'livingAreaSqft',
      'lotSizeSqft',
      'bedrooms',
      'bathrooms',
      'assessedValue',
      'lastSalePrice',
      'unitCount',
    ] as const
  ).map((k) => [k, 'number'] as const),
  ['lastSaleDate', 'date'],
  ['other', 'other'],
]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);
const isDate = (v: unknown) => isString(v) && ISO_DATE.test(v);

function isStoredAnswer(v: unknown): v is StoredAnswer {
  return (
    isObject(v) &&
    OUTCOMES.has(v.outcome) &&
    optional(v.property, isProperty) &&
    (v.match === undefined || v.match === null || isExplanation(v.match)) &&
    optional(v.candidates, (c) => Array.isArray(c) && c.every(isCandidate)) &&
    optional(v.error, isLookupError) &&
    optional(v.cached, (c) => typeof c === 'boolean') &&
    optional(v.retrievedAt, isString)
  );
}

function isProperty(v: unknown): boolean {
  return (
    isObject(v) &&
    isString(v.id) &&
    isString(v.address) &&
    isString(v.source) &&
    (v.sourceKind === null || isString(v.sourceKind)) &&
    CONFIDENCES.has(v.confidence) &&
    isDate(v.lastVerified) &&
    isAttributes(v.attributes)
  );
}

function isAttributes(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const key of Object.keys(v)) {
    const kind = ATTRIBUTES.get(key);
    const value = v[key];
    if (kind === undefined) return false;
    if (kind === 'other') {
      if (!isObject(value) || !Object.values(value).every(isString)) return false;
    } else if (value !== null) {
      if (kind === 'text' ? !isString(value) : kind === 'number' ? !isNumber(value) : !isDate(value))
        return false;
    }
  }
  return true;
}

const isCandidate = (v: unknown) =>
  isObject(v) && isString(v.id) && isString(v.address) && optional(v.confidence, (c) => CONFIDENCES.has(c));

const isLookupError = (v: unknown) =>
  isObject(v) &&
  ERROR_CODES.has(v.code) &&
  isString(v.message) &&
  optional(v.resetAt, isString) &&
  optional(v.total, (t) => Number.isSafeInteger(t) && (t as number) >= 0) &&
  optional(v.reason, (r) => NOT_FOUND_REASONS.has(r));

const isExplanation = (v: unknown) =>
  isObject(v) &&
  isString(v.typed) &&
  isString(v.matched) &&
  Array.isArray(v.changes) &&
  v.changes.every(
    (c) =>
      isObject(c) &&
      CHANGE_KINDS.has(c.kind) &&
      PARTS.has(c.part) &&
      isString(c.typed) &&
      isString(c.matched),
  ) &&
  optional(v.quality, (q) => QUALITIES.has(q)) &&
  optional(v.reason, isString);

/**
 * A row of run `run` as the API gives it. A row a reviewer fixed in this run says no "previous": its answer
 * changed by the fix, not because the service's record did.
 */
export function toRowResult(row: JoinedRow, run: number, read = readResult): ReviewRowResult {
  const result = row.state === 'done' ? read(row.result) : undefined;
  const fix = readFix(row.fix);
  const excluded = readExclusion(row.excluded);
  const decision = readDecision(row.decision);
  const previous =
    result && fix?.run !== run && row.previous ? previousIfChanged(read(row.previous), result) : undefined;
  return {
    index: row.row_index,
    input: row.address,
    ...(fix ? { fix } : {}),
    ...(excluded ? { excluded } : {}),
    ...(decision ? { decision } : {}),
    ...(row.cells ? { cells: JSON.parse(row.cells) as string[] } : {}),
    ...(row.source_row ? { sourceRow: Number(row.source_row) } : {}),
    ...(row.parcel ? { parcel: row.parcel } : {}),
    outcome: result?.outcome ?? (row.state === 'cancelled' ? 'not_asked' : 'pending'),
    ...(result?.property ? { property: result.property } : {}),
    ...(result && result.match !== undefined ? { match: result.match } : {}),
    ...(result?.candidates ? { candidates: result.candidates } : {}),
    ...(result?.error ? { error: result.error } : {}),
    ...(result?.cached !== undefined ? { cached: result.cached } : {}),
    ...(result?.retrievedAt ? { retrievedAt: result.retrievedAt } : {}),
    ...(previous ? { previous } : {}),
    seq: Number(row.seq ?? 0),
  };
}
