import {
  type Confidence,
  type MatchKind,
  needsLook,
  type ReviewRowOutcome,
} from '../../../../contract/index.ts';
import type { FreshnessTier } from '../../property/index.ts';
import { agencyOf, CONFIDENCE_WORD } from '../../property/index.ts';
import { DECISION_TEXT, type DecisionFilter, matchesDecision } from './decisions.ts';
import {
  AGE_BINS,
  type AgeBin,
  inAgeBin,
  isLook,
  MATCH_TEXT,
  OUTCOME_TEXT,
  type ResultRow,
  TIER_TEXT,
} from './stats.ts';

/**
 * What the results table is narrowed to. The table's own controls and the charts' bars set the same
 * filters, so a bar clicked in a chart shows up as a filter the reviewer can see and clear.
 */
export interface ResultFilters {
  outcome: ReviewRowOutcome | null;
  confidence: Confidence | null;
  /** How the record's address relates to what was given. */
  match: MatchKind | null;
  /**
   * A source by name, the chart's "other sources" bar (several names under one label), or with `byKind`
   * a kind of source (names are then source kinds: assessor, mls, ...; '' for records of no stated kind).
   */
  source: { label: string; names: string[]; byKind?: boolean } | null;
  tier: FreshnessTier | null;
  /** A bar of the verification-age histogram. */
  ageBin: AgeBin['id'] | null;
  /** Only rows whose record changed since the previous run ("Check again"). */
  changed: boolean;
  /** Only matches that need a look (a changed directional or suffix, a street line alone). */
  needsLook: boolean;
  /** Only rows a reviewer excluded from the review. */
  excluded: boolean;
  /** Only rows of one decision, or those with none yet. */
  decision: DecisionFilter | null;
  text: string;
}

export const NO_FILTERS: ResultFilters = {
  outcome: null,
  confidence: null,
  match: null,
  source: null,
  tier: null,
  ageBin: null,
  changed: false,
  needsLook: false,
  excluded: false,
  decision: null,
  text: '',
};

/** Case, accents' composition and runs of spaces do not matter to a text search. */
const fold = (s: string) => s.normalize('NFKC').toLocaleLowerCase().replace(/\s+/g, ' ').trim();

export function filterRows(rows: readonly ResultRow[], f: ResultFilters): ResultRow[] {
  const text = fold(f.text);
  const bin = f.ageBin ? AGE_BINS.find((b) => b.id === f.ageBin) : undefined;
  const names = f.source ? new Set(f.source.names) : null;
  return rows.filter((r) => {
    const p = r.row.property;
    if (f.outcome && r.row.outcome !== f.outcome) return false;
    // "Matched" is what the summary counts as matched: a match that needs a look is not one.
    if (f.outcome === 'matched' && isLook(r)) return false;
    if (f.confidence && p?.confidence !== f.confidence) return false;
    if (f.match && r.match !== f.match) return false;
    if (names && !(p && names.has(f.source?.byKind ? (p.sourceKind ?? '') : agencyOf(p)))) return false;
    if (f.tier && r.tier !== f.tier) return false;
    if (bin && (r.ageDays === null || !inAgeBin(bin, r.ageDays))) return false;
    if (f.changed && !r.row.previous) return false;
    if (f.needsLook && !(r.quality && needsLook(r.quality))) return false;
    if (f.excluded && !r.row.excluded) return false;
    if (f.decision && !matchesDecision(r.row, f.decision)) return false;
    if (text) {
      const hay = fold([r.row.input, p?.address ?? '', p ? agencyOf(p) : '', p?.id ?? ''].join('\n'));
      if (!hay.includes(text)) return false;
    }
    return true;
  });
}

/** The active filters in words, one per chip: "Confidence: High". */
export function describeFilters(f: ResultFilters): { key: keyof ResultFilters; text: string }[] {
  const out: { key: keyof ResultFilters; text: string }[] = [];
  if (f.outcome) out.push({ key: 'outcome', text: `Outcome: ${OUTCOME_TEXT[f.outcome]}` });
  if (f.confidence) out.push({ key: 'confidence', text: `Confidence: ${CONFIDENCE_WORD[f.confidence]}` });
  if (f.match) out.push({ key: 'match', text: `Match: ${MATCH_TEXT[f.match]}` });
  if (f.source)
    out.push({ key: 'source', text: `${f.source.byKind ? 'Kind of source' : 'Source'}: ${f.source.label}` });
  if (f.tier) out.push({ key: 'tier', text: `Age tier: ${TIER_TEXT[f.tier]}` });
  if (f.ageBin) {
    const bin = AGE_BINS.find((b) => b.id === f.ageBin);
    if (bin) out.push({ key: 'ageBin', text: `Verified: ${bin.label} ago` });
  }
  if (f.changed) out.push({ key: 'changed', text: 'Changed since the previous run' });
  if (f.needsLook) out.push({ key: 'needsLook', text: 'Matches that need a look' });
  if (f.excluded) out.push({ key: 'excluded', text: 'Rows excluded from the review' });
  if (f.decision)
    out.push({
      key: 'decision',
      text: `Decision: ${f.decision === 'undecided' ? 'None yet' : DECISION_TEXT[f.decision]}`,
    });
  if (f.text.trim()) out.push({ key: 'text', text: `Text: “${f.text.trim()}”` });
  return out;
}

export function clearFilter(f: ResultFilters, key: keyof ResultFilters): ResultFilters {
  return { ...f, [key]: NO_FILTERS[key] };
}
