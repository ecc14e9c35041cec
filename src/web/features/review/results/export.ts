import Papa from 'papaparse';
import { describeMatch, FORMULA_TRIGGER } from '../../../../contract/index.ts';
import { ATTRIBUTES } from '../../property/lib/vocabulary.ts';
import type { Review, ReviewRow } from '../model.ts';
import { toResultRows } from './stats.ts';

/*
 * Evidence export: one line per input row, in input order, whatever its outcome. The first columns say what
 * was asked, what came back and how reliable it is, when it was retrieved and by whom; every attribute
 * follows, then why a row has no record. The CSV is for spreadsheets (formula injection neutralised, UTF-8
 * with a BOM so Excel reads accents right); the JSON keeps raw values for programs.
 */

export const CORE_COLUMNS = [
  'input',
  'outcome',
  'matched_address',
  'match',
  'match_quality',
  'match_changes',
  'property_id',
  'source',
  'source_kind',
  'confidence',
  'last_verified',
  'age_days',
  'retrieved_at',
  'account',
] as const;

const TRAILING_COLUMNS = ['error_code', 'error_message', 'candidates'] as const;

export type ExportValue = string | number | boolean | null;
export type ExportRecord = Record<string, ExportValue>;

export interface ExportTable {
  columns: string[];
  records: ExportRecord[];
  /** An uploaded file's own columns, first in `columns` (JSON nests them under `input`); empty otherwise. */
  inputColumns: string[];
}

/** PropLens's columns next to a file's own: prefixed, so they never collide with the reviewer's. */
export const JOINED_PREFIX = 'proplens_';

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

const CHANGE_COLUMNS = [
  'changed',
  'previous_outcome',
  'previous_property_id',
  'previous_source',
  'previous_confidence',
  'previous_last_verified',
] as const;

/** When a reviewer fixed any row in place: what was looked up instead of the input, by whom, when. */
const FIX_COLUMNS = ['looked_up_as', 'fixed_how', 'fixed_by', 'fixed_at'] as const;

/** The export's rows and its column order (fields the upstream sent beyond ours appear as `other.<name>`). */
export function buildExport(review: Review, rows: readonly ReviewRow[], now: Date): ExportTable {
  const otherKeys = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.property?.attributes.other ?? {})) otherKeys.add(k);
  const others = [...otherKeys].sort();
  const checkedAgain = (review.runs?.length ?? 1) > 1;
  const anyFixed = rows.some((r) => r.fix);
  const own = [
    ...CORE_COLUMNS,
    ...ATTRIBUTES.map((a) => a.column),
    ...others.map((k) => `other.${k}`),
    ...TRAILING_COLUMNS,
    ...(checkedAgain ? CHANGE_COLUMNS : []),
    ...(anyFixed ? FIX_COLUMNS : []),
  ];
  // A CSV review joins back: the file's own columns, every one in order, then PropLens's, prefixed.
  const inputColumns = review.columns?.length ? inputColumnNames(review.columns) : [];
  const prefix = inputColumns.length > 0 ? JOINED_PREFIX : '';
  const columns = [...inputColumns, ...own.map((c) => `${prefix}${c}`)];

  // The rows as every view derives them (input order, age, match), so the file says what the screen says.
  const records = toResultRows(rows, now).map(
    ({ row: r, ageDays, match, explanation, quality }): ExportRecord => {
      const p = r.property;
      const rec: ExportRecord = {
        input: r.input,
        outcome: r.outcome,
        matched_address: p?.address ?? null,
        match,
        match_quality: quality,
        match_changes: explanation ? describeMatch(explanation) : null,
        property_id: p?.id ?? null,
        source: p?.source ?? null,
        source_kind: p?.sourceKind ?? null,
        confidence: p?.confidence ?? null,
        last_verified: p?.lastVerified ?? null,
        age_days: ageDays,
        retrieved_at: r.retrievedAt ?? null,
        account: review.accountName,
      };
      for (const { column, field } of ATTRIBUTES) rec[column] = p?.attributes[field] ?? null;
      const other = p?.attributes.other;
      for (const k of others)
        rec[`other.${k}`] = other && Object.hasOwn(other, k) ? (other[k] ?? null) : null;
      rec.error_code = r.outcome === 'matched' ? null : (r.error?.code ?? null);
      rec.error_message = r.outcome === 'matched' ? null : (r.error?.message ?? null);
      rec.candidates = r.candidates?.length ? r.candidates.map((c) => c.address).join(' | ') : null;
      if (checkedAgain) {
        const before = r.previous;
        rec.changed = Boolean(before);
        rec.previous_outcome = before?.outcome ?? null;
        rec.previous_property_id = before?.propertyId ?? null;
        rec.previous_source = before?.source ?? null;
        rec.previous_confidence = before?.confidence ?? null;
        rec.previous_last_verified = before?.lastVerified ?? null;
      }
      if (anyFixed) {
        rec.looked_up_as = r.fix?.address ?? null;
        rec.fixed_how = r.fix?.how ?? null;
        rec.fixed_by = r.fix?.by ?? null;
        rec.fixed_at = r.fix?.at ?? null;
      }
      if (!prefix) return rec;
      const joined: ExportRecord = Object.create(null);
      inputColumns.forEach((name, i) => {
        joined[name] = r.cells?.[i] ?? null;
      });
      for (const c of own) joined[`${prefix}${c}`] = rec[c] ?? null;
      return joined;
    },
  );
  return { columns, records, inputColumns };
}

/** Papaparse's own default pattern misses a formula followed by a line break (`.*$` stops at it), hence ours. */
export { FORMULA_TRIGGER };

export const UTF8_BOM = '\ufeff';

export function toCsv(table: ExportTable): string {
  const csv = Papa.unparse(
    { fields: table.columns, data: table.records.map((rec) => table.columns.map((c) => rec[c] ?? '')) },
    { escapeFormulae: FORMULA_TRIGGER, newline: '\r\n', quotes: false },
  );
  return `${UTF8_BOM}${csv}\r\n`;
}

export function toJson(review: Review, table: ExportTable, now: Date): string {
  return `${JSON.stringify(
    {
      review: {
        id: review.id,
        name: review.name,
        account: review.accountName,
        createdAt: new Date(review.createdAt).toISOString(),
        exportedAt: now.toISOString(),
        rows: table.records.length,
      },
      columns: table.columns,
      rows:
        table.inputColumns.length === 0
          ? table.records
          : table.records.map((rec) => {
              // The reviewer's own fields as one object per row, PropLens's beside them.
              const input: ExportRecord = Object.create(null);
              const rest: ExportRecord = {};
              for (const [k, v] of Object.entries(rec)) {
                if (table.inputColumns.includes(k)) input[k] = v;
                else rest[k] = v;
              }
              return { input, ...rest };
            }),
    },
    null,
    2,
  )}\n`;
}

/** "proplens-portfolio-q3-2026-11-02.csv": the review's name made file-safe, and the day of the export. */
export function exportFileName(review: Review, ext: 'csv' | 'json', now: Date): string {
  const slug =
    review.name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'review';
  const day = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  return `proplens-${slug}-${day}.${ext}`;
}

/** Saves `text` as a file through a Blob URL (no server round trip; the data never leaves the browser). */
export function downloadText(text: string, type: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked on the next task: the click has started the download by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
