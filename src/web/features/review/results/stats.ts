import {
  type Confidence,
  type MatchExplanation,
  type MatchKind,
  type MatchQuality,
  matchKind,
  needsLook,
  qualityOf,
  type ReviewRowOutcome,
  type ReviewRowResult,
} from '../../../../contract/index.ts';
// The record view's tier rules are the product's shared vocabulary: reused, never copied (brief: the review
// feature may import features/property's verification lib and badges).
import {
  AGEING_MAX_DAYS,
  ageInDays,
  agencyOf,
  FRESH_MAX_DAYS,
  type FreshnessTier,
  tierFor,
} from '../../property/index.ts';

/**
 * A review row with what every view derives from it once: the verification's age and tier, and how the
 * record's address relates to what was given (as the search page explains it).
 */
export interface ResultRow {
  row: ReviewRowResult;
  /** Whole days since the record was last verified; null without a record. */
  ageDays: number | null;
  tier: FreshnessTier | null;
  /** Null without a record. */
  match: MatchKind | null;
  /** What was corrected or added; null when the record has the address as given (or there is no record). */
  explanation: MatchExplanation | null;
  /** How good the match is; null without a record. */
  quality: MatchQuality | null;
}

export const OUTCOMES: readonly ReviewRowOutcome[] = [
  'matched',
  'not_found',
  'ambiguous',
  'failed',
  'pending',
  'not_asked',
];
export const TIERS: readonly FreshnessTier[] = ['fresh', 'ageing', 'stale'];

export const OUTCOME_TEXT: Record<ReviewRowOutcome, string> = {
  matched: 'Matched',
  not_found: 'Not found',
  ambiguous: 'Ambiguous',
  failed: 'Failed',
  pending: 'Pending',
  not_asked: 'Not asked',
};
/** A row's outcome in words: "Unit not found" for a known building without the unit (review finding R20). */
export const outcomeText = (row: Pick<ReviewRowResult, 'outcome' | 'error'>): string =>
  row.outcome === 'not_found' && row.error?.code === 'unit_not_found'
    ? 'Unit not found'
    : OUTCOME_TEXT[row.outcome];
/** A match that needs a look, where a row's outcome is said (table, summary, print). */
export const LOOK_TEXT = 'Needs a look';
export const TIER_TEXT: Record<FreshnessTier, string> = { fresh: 'Fresh', ageing: 'Aging', stale: 'Stale' };
export const MATCHES: readonly MatchKind[] = ['as_typed', 'corrected', 'completed'];
export const MATCH_TEXT: Record<MatchKind, string> = {
  as_typed: 'As given',
  corrected: 'Corrected',
  completed: 'Parts added',
};

/**
 * How a row's record relates to its input: the BFF's word, worked out with the answer (it explains every record
 * it answers with). Said of the row's input as given: the BFF's `typed` is the address it looked up, which for a
 * fixed row is the fix and otherwise the input as the BFF checked it (trimmed, a ZIP's leading zero restored).
 */
function explanationOf(row: ReviewRowResult): MatchExplanation | null {
  if (!row.property || !row.match) return null;
  return row.match.typed === row.input ? row.match : { ...row.match, typed: row.input };
}

/**
 * Each row's derivation as of a moment, kept while the row object lives: a row is replaced, never changed, when
 * its answer changes, so a running review's redraw derives only the rows answered since the last one.
 */
const derived = new WeakMap<ReviewRowResult, { at: number; result: ResultRow }>();

function toResultRow(row: ReviewRowResult, now: Date): ResultRow {
  const kept = derived.get(row);
  if (kept?.at === now.getTime()) return kept.result;
  const p = row.property;
  const ageDays = p ? ageInDays(p.lastVerified, now) : null;
  const explanation = explanationOf(row);
  const result = {
    row,
    ageDays,
    tier: ageDays === null ? null : tierFor(ageDays),
    match: p ? matchKind(explanation) : null,
    explanation,
    quality: p ? qualityOf(explanation) : null,
  };
  derived.set(row, { at: now.getTime(), result });
  return result;
}

/** Rows in input order, each with its age and tier as of `now` (the reader's calendar day). */
export function toResultRows(rows: readonly ReviewRowResult[], now: Date): ResultRow[] {
  // A live review's rows come in input order already: sorted only when they are not.
  const inOrder = rows.every((r, i) => i === 0 || (rows[i - 1] as ReviewRowResult).index < r.index);
  return (inOrder ? rows : [...rows].sort((a, b) => a.index - b.index)).map((row) => toResultRow(row, now));
}

export interface ReliabilitySummary {
  /** Input rows in the review that count (every row but those a reviewer excluded). */
  rows: number;
  /** Rows a reviewer excluded: in the table, marked, but in none of these figures. */
  excluded: number;
  /** Rows that came back with a record (matched, not needing a look). Confidence and age shares are of these. */
  records: number;
  /** Distinct properties among the records: several rows (spellings of one address) can find the same one. */
  properties: number;
  /**
   * Rows by outcome; a match that needs a look (another directional or place than typed, or a street line alone)
   * is counted in `looks`, not `matched`: it may be another property.
   */
  outcomes: Record<ReviewRowOutcome, number>;
  looks: number;
  confidence: Record<Confidence, number>;
  tiers: Record<FreshnessTier, number>;
  /** Median days since last verification over the records; null when there are none. */
  medianAgeDays: number | null;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarize(results: readonly ResultRow[]): ReliabilitySummary {
  const outcomes = { matched: 0, not_found: 0, ambiguous: 0, failed: 0, pending: 0, not_asked: 0 };
  const confidence = { high: 0, medium: 0, low: 0 };
  const tiers = { fresh: 0, ageing: 0, stale: 0 };
  const ages: number[] = [];
  const ids = new Set<string>();
  let looks = 0;
  let excluded = 0;
  for (const r of results) {
    if (!isCounted(r)) {
      excluded += 1;
      continue;
    }
    // A match that needs a look may be another property: counted apart, and in none of the records' shares.
    if (isLook(r)) {
      looks += 1;
      continue;
    }
    outcomes[r.row.outcome] += 1;
    if (r.row.property && r.ageDays !== null && r.tier !== null) {
      ids.add(r.row.property.id);
      confidence[r.row.property.confidence] += 1;
      tiers[r.tier] += 1;
      ages.push(r.ageDays);
    }
  }
  return {
    rows: results.length - excluded,
    excluded,
    records: ages.length,
    properties: ids.size,
    outcomes,
    looks,
    confidence,
    tiers,
    medianAgeDays: median(ages),
  };
}

/** A row a reviewer excluded keeps its place in the table, but counts in none of the review's figures. */
export const isCounted = (r: ResultRow) => r.row.excluded === undefined;
/** Said of an excluded row, wherever its outcome is said (table, details, print). */
export const EXCLUDED_TEXT = 'Excluded';

/** Rows whose match needs a look (as isLook says of a row), counted from the rows as the server sends them. */
export function countLooks(rows: readonly ReviewRowResult[]): number {
  let looks = 0;
  for (const row of rows)
    if (row.outcome === 'matched' && row.property && !row.excluded && needsLook(qualityOf(row.match ?? null)))
      looks += 1;
  return looks;
}

/** A match a reviewer should look at before relying on it: not counted as matched. */
export const isLook = (r: ResultRow) =>
  r.row.outcome === 'matched' && r.quality !== null && needsLook(r.quality);

/**
 * A share as a reader says it: whole percent, but never "0%" for something that is there nor "100%" for
 * something that is not all ("<1%", ">99%"), so a single stale record in 10,000 is not hidden.
 */
export function formatShare(part: number, whole: number): string {
  if (whole === 0) return '–';
  if (part === 0) return '0%';
  if (part === whole) return '100%';
  const pct = (part / whole) * 100;
  if (pct < 1) return '<1%';
  if (pct > 99) return '>99%';
  return `${Math.round(pct)}%`;
}

/** One bar of the verification-age histogram; bins never straddle a tier boundary. */
export interface AgeBin {
  id: string;
  label: string;
  /** For a chart axis at phone width. */
  short: string;
  /** Inclusive day range; max null means "and older". */
  min: number;
  max: number | null;
  tier: FreshnessTier;
}

export const AGE_BINS: readonly AgeBin[] = [
  { id: '0-30', short: '0–30d', label: '0–30 days', min: 0, max: 30, tier: 'fresh' },
  {
    id: '31-90',
    short: '31–90d',
    label: `31–${FRESH_MAX_DAYS} days`,
    min: 31,
    max: FRESH_MAX_DAYS,
    tier: 'fresh',
  },
  {
    id: '91-180',
    short: '91–180d',
    label: `${FRESH_MAX_DAYS + 1}–180 days`,
    min: FRESH_MAX_DAYS + 1,
    max: 180,
    tier: 'ageing',
  },
  {
    id: '181-365',
    short: '181–365d',
    label: `181–${AGEING_MAX_DAYS} days`,
    min: 181,
    max: AGEING_MAX_DAYS,
    tier: 'ageing',
  },
  { id: '1-2y', short: '1–2y', label: '1–2 years', min: AGEING_MAX_DAYS + 1, max: 730, tier: 'stale' },
  { id: '2-3y', short: '2–3y', label: '2–3 years', min: 731, max: 1095, tier: 'stale' },
  { id: '3y+', short: '3y+', label: 'Over 3 years', min: 1096, max: null, tier: 'stale' },
];

export const inAgeBin = (bin: AgeBin, days: number) =>
  days >= bin.min && (bin.max === null || days <= bin.max);

export function ageHistogram(results: readonly ResultRow[]): { bin: AgeBin; count: number }[] {
  const counts = AGE_BINS.map((bin) => ({ bin, count: 0 }));
  for (const r of results) {
    if (r.ageDays === null) continue;
    const slot = counts.find((c) => inAgeBin(c.bin, r.ageDays as number));
    if (slot) slot.count += 1;
  }
  return counts;
}

/**
 * Records by kind of source (assessor record, MLS listing, ...), each with its confidence mix: readable
 * when a review spans many counties, each with its own assessor. `sources` holds the kinds ('' for none).
 */
export function recordsByKind(
  results: readonly ResultRow[],
  kindText: (kind: string | null) => string | null,
): SourceBar[] {
  const byKind = new Map<string, SourceBar>();
  for (const r of results) {
    const p = r.row.property;
    if (!p) continue;
    const kind = p.sourceKind ?? '';
    let bar = byKind.get(kind);
    if (!bar) {
      bar = {
        label: kindText(p.sourceKind) ?? 'Kind not stated',
        sources: [kind],
        high: 0,
        medium: 0,
        low: 0,
        total: 0,
      };
      byKind.set(kind, bar);
    }
    bar[p.confidence] += 1;
    bar.total += 1;
  }
  return [...byKind.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
}

/** Sources shown by name in the source chart; the rest share one "other sources" bar. */
export const MAX_NAMED_SOURCES = 8;

export interface SourceBar {
  /** The source's name, or the "other sources" label. */
  label: string;
  /** The sources this bar counts (one, or all the others), each named with its state (agencyOf). */
  sources: string[];
  high: number;
  medium: number;
  low: number;
  total: number;
}

/** Records by source, largest first, each with its confidence mix; a long tail folded into one bar. */
export function recordsBySource(results: readonly ResultRow[], maxNamed = MAX_NAMED_SOURCES): SourceBar[] {
  const bySource = new Map<string, SourceBar>();
  for (const r of results) {
    const p = r.row.property;
    if (!p) continue;
    const agency = agencyOf(p);
    let bar = bySource.get(agency);
    if (!bar) {
      bar = { label: agency, sources: [agency], high: 0, medium: 0, low: 0, total: 0 };
      bySource.set(agency, bar);
    }
    bar[p.confidence] += 1;
    bar.total += 1;
  }
  const bars = [...bySource.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  if (bars.length <= maxNamed + 1) return bars;
  const rest = bars.slice(maxNamed);
  const other: SourceBar = {
    label: `${rest.length} other sources`,
    sources: rest.flatMap((b) => b.sources),
    high: 0,
    medium: 0,
    low: 0,
    total: 0,
  };
  for (const b of rest) {
    other.high += b.high;
    other.medium += b.medium;
    other.low += b.low;
    other.total += b.total;
  }
  return [...bars.slice(0, maxNamed), other];
}
