import Papa from 'papaparse';
import { describeMatch, type PropertyAttributes } from '../../../../contract/index.ts';
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

const ATTRIBUTE_COLUMNS: [string, keyof Omit<PropertyAttributes, 'other'>][] = [
  ['street_number', 'streetNumber'],
  ['street_name', 'streetName'],
  ['unit', 'unit'],
  ['city', 'city'],
  ['state', 'state'],
  ['zip', 'zip'],
  ['county', 'county'],
  ['parcel_number', 'parcelNumber'],
  ['property_type', 'propertyType'],
  ['year_built', 'yearBuilt'],
  ['living_area_sqft', 'livingAreaSqft'],
  ['lot_size_sqft', 'lotSizeSqft'],
  ['bedrooms', 'bedrooms'],
  ['bathrooms', 'bathrooms'],
  ['assessed_value', 'assessedValue'],
  ['last_sale_date', 'lastSaleDate'],
  ['last_sale_price', 'lastSalePrice'],
];

const TRAILING_COLUMNS = ['error_code', 'error_message', 'candidates'] as const;

export type ExportValue = string | number | boolean | null;
export type ExportRecord = Record<string, ExportValue>;

export interface ExportTable {
  columns: string[];
  records: ExportRecord[];
}

/** The export's rows and its column order (fields the upstream sent beyond ours appear as `other.<name>`). */
export function buildExport(review: Review, rows: readonly ReviewRow[], now: Date): ExportTable {
  const otherKeys = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.property?.attributes.other ?? {})) otherKeys.add(k);
  const others = [...otherKeys].sort();
  const columns = [
    ...CORE_COLUMNS,
    ...ATTRIBUTE_COLUMNS.map(([c]) => c),
    ...others.map((k) => `other.${k}`),
    ...TRAILING_COLUMNS,
  ];

  // The rows as every view derives them (input order, age, match), so the file says what the screen says.
  const records = toResultRows(rows, now).map(({ row: r, ageDays, match, explanation }): ExportRecord => {
    const p = r.property;
    const rec: ExportRecord = {
      input: r.input,
      outcome: r.outcome,
      matched_address: p?.address ?? null,
      match,
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
    for (const [col, key] of ATTRIBUTE_COLUMNS) rec[col] = p?.attributes[key] ?? null;
    const other = p?.attributes.other;
    for (const k of others) rec[`other.${k}`] = other && Object.hasOwn(other, k) ? (other[k] ?? null) : null;
    rec.error_code = r.outcome === 'matched' ? null : (r.error?.code ?? null);
    rec.error_message = r.outcome === 'matched' ? null : (r.error?.message ?? null);
    rec.candidates = r.candidates?.length ? r.candidates.map((c) => c.address).join(' | ') : null;
    return rec;
  });
  return { columns, records };
}

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, also after leading spaces, and their
 * full-width forms; a leading tab or carriage return) is prefixed with an apostrophe, so it shows as text.
 * Papaparse's own default pattern misses a formula followed by a line break (`.*$` stops at it), hence ours.
 */
export const FORMULA_TRIGGER = /^[\t\r]|^[\s\u00a0\u3000]*[=+\-@\uff1d\uff0b\uff0d\uff20]/;

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
      rows: table.records,
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
