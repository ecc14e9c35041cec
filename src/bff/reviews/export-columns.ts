import {
  csvCell,
  describeMatch,
  EXPORT_ATTRIBUTE_COLUMNS,
  type MatchExplanation,
  matchKind,
  notFoundReasonText,
  type Property,
  qualityOf,
  type ReviewRowResult,
} from '../../contract/index.ts';
import { explainRecordMatch } from '../../contract/server/index.ts';

/*
 * The review export's columns: one line per input row, in input order, whatever its outcome. The first columns
 * say what was asked, what came back and how reliable it is, when it was retrieved and by whom; every attribute
 * follows, then why a row has no record, then (when they apply) what changed since the previous run, which
 * rows a reviewer fixed or excluded, and each row's decision (keys by fingerprint, each with its holder's name). A CSV review's own columns come first, PropLens's after them, prefixed. The CSV is for
 * spreadsheets (csvCell: formula injection neutralised; UTF-8 with a BOM so Excel reads accents right); the
 * JSON keeps raw values for programs.
 *
 * A column is one line: a name and how a row gives its value.
 */

export type ExportValue = string | number | boolean | null;

/** A row with what every column derives from it once. */
export interface ExportRow {
  row: ReviewRowResult;
  property: Property | undefined;
  /** How the record's address relates to the input; null when as given or without a record. */
  explanation: MatchExplanation | null;
}

/** What is the same for every row of one export. */
export interface ExportContext {
  /** The account's name, for "retrieved by". */
  accountName: string;
  /** The reader's calendar day (YYYY-MM-DD): ages count to it. */
  today: string;
  /** Whole days from a verification date to `today` (exportLayout supplies it). */
  ageOf?: (lastVerified: string) => number;
  /** Who started the review: the key's fingerprint. */
  startedBy?: string;
  /** The name a key's holder gave it, among those the reader may read (routes/session.ts keyNamesFor); null: none. */
  nameOf?: (fingerprint: string) => string | null;
}

/** A key's name beside its fingerprint (empty where it has none, or the reader may not read it). */
const nameOf = (ctx: ExportContext, fingerprint: string | undefined): string | null =>
  fingerprint ? (ctx.nameOf?.(fingerprint) ?? null) : null;

type Column = readonly [name: string, value: (r: ExportRow, ctx: ExportContext) => ExportValue];

const CORE: readonly Column[] = [
  // Where the row was in the file or paste (1-based, as a spreadsheet numbers it): the export joins back by it.
  ['source_row', (r) => r.row.sourceRow ?? null],
  ['input', (r) => r.row.input],
  ['outcome', (r) => r.row.outcome],
  ['matched_address', (r) => r.property?.address ?? null],
  ['match', (r) => (r.property ? matchKind(r.explanation) : null)],
  ['match_quality', (r) => (r.property ? qualityOf(r.explanation) : null)],
  ['match_changes', (r) => (r.explanation ? describeMatch(r.explanation) : null)],
  ['property_id', (r) => r.property?.id ?? null],
  ['source', (r) => r.property?.source ?? null],
  ['source_kind', (r) => r.property?.sourceKind ?? null],
  ['confidence', (r) => r.property?.confidence ?? null],
  ['last_verified', (r) => r.property?.lastVerified ?? null],
  [
    'age_days',
    (r, ctx) =>
      r.property
        ? (ctx.ageOf?.(r.property.lastVerified) ?? ageInDays(r.property.lastVerified, ctx.today))
        : null,
  ],
  ['retrieved_at', (r) => r.row.retrievedAt ?? null],
  ['account', (_r, ctx) => ctx.accountName],
  // Who started the review, by key and by the name its holder gave it.
  ['started_by', (_r, ctx) => ctx.startedBy ?? null],
  ['started_by_name', (_r, ctx) => nameOf(ctx, ctx.startedBy)],
];

export const CORE_COLUMNS = CORE.map(([name]) => name);

const ATTRIBUTES: readonly Column[] = EXPORT_ATTRIBUTE_COLUMNS.map(({ field, column }) => [
  column,
  (r) => r.property?.attributes[field] ?? null,
]);

/** Why a row has no record (a matched row says nothing here). */
const TRAILING: readonly Column[] = [
  ['error_code', (r) => (r.row.outcome === 'matched' ? null : (r.row.error?.code ?? null))],
  [
    'error_message',
    (r) => {
      if (r.row.outcome === 'matched') return null;
      const reason = r.row.error?.reason;
      return reason ? notFoundReasonText(reason, r.row.input) : (r.row.error?.message ?? null);
    },
  ],
  /**
   * no_such_house, no_such_street, place_not_covered (the service's, when it could tell), unit_not_found (the
   * building is known, not the unit), or no_address.
   */
  [
    'reason',
    (r) => {
      if (r.row.outcome === 'matched' || !r.row.error) return null;
      const { code } = r.row.error;
      return r.row.error.reason ?? (code === 'no_address' || code === 'unit_not_found' ? code : null);
    },
  ],
  [
    'candidates',
    (r) => (r.row.candidates?.length ? r.row.candidates.map((c) => c.address).join(' | ') : null),
  ],
];

/** From run 2 on: whether the record changed since the previous run, and what it said then. */
const CHANGES: readonly Column[] = [
  ['changed', (r) => Boolean(r.row.previous)],
  ['previous_outcome', (r) => r.row.previous?.outcome ?? null],
  ['previous_property_id', (r) => r.row.previous?.propertyId ?? null],
  ['previous_source', (r) => r.row.previous?.source ?? null],
  ['previous_confidence', (r) => r.row.previous?.confidence ?? null],
  ['previous_last_verified', (r) => r.row.previous?.lastVerified ?? null],
];

/** When a reviewer fixed any row in place: what was looked up instead of the input, by whom, when. */
const FIXES: readonly Column[] = [
  ['looked_up_as', (r) => r.row.fix?.address ?? null],
  ['fixed_how', (r) => r.row.fix?.how ?? null],
  ['fixed_by', (r) => r.row.fix?.by ?? null],
  ['fixed_by_name', (r, ctx) => nameOf(ctx, r.row.fix?.by)],
  ['fixed_at', (r) => r.row.fix?.at ?? null],
];

/**
 * When a reviewer excluded any row: whether each row is excluded, just after its outcome (so a sheet filtered on
 * the outcome shows the mark beside it), and why, by whom and when at the end. An excluded row keeps its line.
 */
const EXCLUDED: Column = ['excluded', (r) => r.row.excluded !== undefined];
const EXCLUSIONS: readonly Column[] = [
  ['excluded_reason', (r) => r.row.excluded?.reason ?? null],
  ['excluded_by', (r) => r.row.excluded?.by ?? null],
  ['excluded_by_name', (r, ctx) => nameOf(ctx, r.row.excluded?.by)],
  ['excluded_at', (r) => r.row.excluded?.at ?? null],
];

/** When a reviewer decided any row (issue 30): each row's current decision, its note, by whom and when. */
const DECISIONS: readonly Column[] = [
  ['decision', (r) => r.row.decision?.decision ?? null],
  ['decision_note', (r) => r.row.decision?.note ?? null],
  ['decided_by', (r) => r.row.decision?.by ?? null],
  ['decided_by_name', (r, ctx) => nameOf(ctx, r.row.decision?.by)],
  ['decided_at', (r) => r.row.decision?.at ?? null],
];

/** PropLens's columns next to a file's own: prefixed, so they never collide with the reviewer's. */
export const JOINED_PREFIX = 'proplens_';

/** What decides an export's columns, known before its first row. */
export interface ExportPlan {
  /** An uploaded file's header, in order; empty for paste and area reviews. */
  header: readonly string[];
  /** The service's extra fields over the run's rows, sorted: `other.<name>` columns. */
  otherKeys: readonly string[];
  /** The run exported has a run before it: the change columns. */
  checkedAgain: boolean;
  /** A reviewer fixed a row: the fix columns. */
  anyFixed: boolean;
  /** A reviewer excluded a row: the exclusion columns. */
  anyExcluded: boolean;
  /** A row has a decision: the decision columns. */
  anyDecided?: boolean;
}

export interface ExportLayout {
  /** Every column, in order: the file's own first. */
  columns: string[];
  /** How many of `columns` are the file's own (JSON nests them under `input`). */
  inputCount: number;
  /** Each column's `"name":`, quoted once per export rather than once per row. */
  jsonKeys: string[];
  /** A row's values, in the order of `columns`. */
  values(row: ReviewRowResult): ExportValue[];
}

/** The export's columns and how each row fills them. */
export function exportLayout(plan: ExportPlan, ctx: ExportContext): ExportLayout {
  const others: Column[] = plan.otherKeys.map((k) => [
    `other.${k}`,
    (r) => {
      const other = r.property?.attributes.other;
      return other && Object.hasOwn(other, k) ? (other[k] ?? null) : null;
    },
  ]);
  const outcomeAt = CORE.findIndex(([name]) => name === 'outcome') + 1;
  const core = plan.anyExcluded ? [...CORE.slice(0, outcomeAt), EXCLUDED, ...CORE.slice(outcomeAt)] : CORE;
  const own = [
    ...core,
    ...ATTRIBUTES,
    ...others,
    ...TRAILING,
    ...(plan.checkedAgain ? CHANGES : []),
    ...(plan.anyFixed ? FIXES : []),
    ...(plan.anyExcluded ? EXCLUSIONS : []),
    ...(plan.anyDecided ? DECISIONS : []),
  ];
  const inputColumns = inputColumnNames(plan.header);
  const prefix = inputColumns.length > 0 ? JOINED_PREFIX : '';
  const n = inputColumns.length;
  const ages = new Map<string, number>();
  const rowCtx: ExportContext = {
    ...ctx,
    // A review's records share few verification dates: each age is counted once.
    ageOf(lastVerified) {
      const known = ages.get(lastVerified);
      if (known !== undefined) return known;
      const age = ageInDays(lastVerified, ctx.today);
      ages.set(lastVerified, age);
      return age;
    },
  };
  const columns = [...inputColumns, ...own.map(([name]) => `${prefix}${name}`)];
  return {
    columns,
    inputCount: n,
    jsonKeys: columns.map((c) => `${JSON.stringify(c)}:`),
    values(row) {
      const r = exportRow(row);
      const out = new Array<ExportValue>(n + own.length);
      for (let i = 0; i < n; i++) out[i] = row.cells?.[i] ?? null;
      for (let i = 0; i < own.length; i++) out[n + i] = (own[i] as Column)[1](r, rowCtx);
      return out;
    },
  };
}

/** A file's header as unique export columns: a repeated or empty name gets its position. */
export function inputColumnNames(header: readonly string[]): string[] {
  const seen = new Set<string>();
  return header.map((raw, i) => {
    let name = raw.trim() || `column_${i + 1}`;
    if (seen.has(name)) name = `${name} (${i + 1})`;
    seen.add(name);
    return name;
  });
}

/**
 * How the record relates to the input: the BFF's word, kept with the answer (rows that differ only in case share
 * one lookup, so the input is each row's own); worked out here for an answer kept without it.
 */
function exportRow(row: ReviewRowResult): ExportRow {
  const property = row.property;
  let explanation: MatchExplanation | null = null;
  if (property)
    explanation =
      row.match === undefined
        ? explainRecordMatch(row.input, property)
        : row.match === null || row.match.typed === row.input
          ? row.match
          : { ...row.match, typed: row.input };
  return { row, property, explanation };
}

/**
 * Whole days from a calendar date to the reader's (`today`), never negative: both are dates without a time
 * zone, compared as days, as the screen compares them.
 */
export function ageInDays(isoDate: string, today: string): number {
  const day = (s: string) => {
    const [y, m, d] = s.split('-').map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d);
  };
  return Math.max(0, Math.round((day(today) - day(isoDate)) / 86_400_000));
}

export const UTF8_BOM = '\ufeff';

/** One CSV line (no line break) with the one writer every PropLens export uses. */
export const csvLine = (values: readonly ExportValue[], separator: ',' | ';' = ','): string =>
  values.map((v) => csvCell(v, separator)).join(separator);

/** One JSON row: the file's own fields as one object under `input`, PropLens's beside them; raw values. */
export function jsonRow(layout: ExportLayout, values: readonly ExportValue[]): string {
  const { jsonKeys: keys, inputCount } = layout;
  const own: string[] = [];
  for (let i = inputCount; i < keys.length; i++) own.push(`${keys[i]}${jsonValue(values[i])}`);
  if (inputCount === 0) return `{${own.join(',')}}`;
  const input: string[] = [];
  for (let i = 0; i < inputCount; i++) input.push(`${keys[i]}${jsonValue(values[i])}`);
  return `{"input":{${input.join(',')}},${own.join(',')}}`;
}

const jsonValue = (v: ExportValue | undefined): string =>
  v === null || v === undefined ? 'null' : typeof v === 'string' ? JSON.stringify(v) : String(v);

/**
 * "proplens-portfolio-q3-2026-11-02.csv": the review's name made safe for a file name and a header; the same for
 * its JSON and its evidence packet (…-2026-11-02.evidence.zip), so a review's files sort together on a disk.
 */
export function exportFileName(name: string, ext: 'csv' | 'json' | 'evidence.zip', today: string): string {
  const slug =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'review';
  return `proplens-${slug}-${today}.${ext}`;
}
