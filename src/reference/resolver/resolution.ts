import type { NotFoundReason } from '../../contract/index.ts';

/*
 * What a typed address came to: the rows that matching needs, their order, and the decision between one
 * record, a choice, a building without the unit asked for, or nothing.
 */

/**
 * What matching and ordering need of a property: the full record is read only for the few that are shown
 * (reading 14,000 whole rows for "100 Main St" takes four times as long as these columns).
 */
export interface Row {
  rid: number;
  zip: string;
  state: string;
  city_key: string;
  street_key: string;
  street_number: string;
  unit_key: string;
}

/**
 * Addresses in a useful order: state, city, street, house number, then unit (the building before its units),
 * numbers compared as numbers. A key per row, compared as plain strings: sorting the 9,000 "100 Main St"
 * with a collator takes a third of a second.
 */
const padNumbers = (s: string) => s.replace(/\d+/g, (d) => d.padStart(8, '0'));
const sortKeys = new WeakMap<Row, string>();
function sortKey(r: Row): string {
  let key = sortKeys.get(r);
  if (key === undefined) {
    key = `${r.state}|${r.city_key}|${r.street_key}|${padNumbers(r.street_number)}|${padNumbers(r.unit_key)}`;
    sortKeys.set(r, key);
  }
  return key;
}
export function byPlace(a: Row, b: Row): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : a.rid - b.rid;
}

/** What a typed address came to, before it is cut down to an answer's size. */
export type Resolution =
  | { kind: 'found'; row: Row }
  /** Every match, in order. */
  | { kind: 'ambiguous'; rows: Row[] }
  | { kind: 'unit_not_found'; building: Row; units: Row[] }
  /** `near`: the known street's nearest house numbers, when the street was recognised. */
  | { kind: 'not_found'; near: Row[]; reason?: NotFoundReason };

export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** The rows that share a house number on the street(s) named, and the unit asked for, if any. */
export function decide(rows: Row[], unit: string | null): Resolution {
  const wanted = unit ?? '';
  const exact = rows.filter((r) => r.unit_key === wanted);
  if (exact.length === 1) return { kind: 'found', row: exact[0] as Row };
  if (exact.length > 1) return { kind: 'ambiguous', rows: exact.sort(byPlace) };
  const buildings = new Map<string, Row[]>();
  for (const r of rows)
    getOrCreate(buildings, `${r.zip}|${r.street_key}|${r.street_number}`, () => []).push(r);
  if (buildings.size > 1) {
    const heads = [...buildings.values()].map((units) => units.find((u) => u.unit_key === '') ?? units[0]);
    return { kind: 'ambiguous', rows: (heads as Row[]).sort(byPlace) };
  }
  const units = ([...buildings.values()][0] as Row[]).sort(byPlace);
  const building = units.find((u) => u.unit_key === '') ?? (units[0] as Row);
  const others = units.filter((u) => u.unit_key !== '');
  if (unit) return { kind: 'unit_not_found', building, units: others };
  // A building known only by its units: which unit was meant?
  return { kind: 'ambiguous', rows: others };
}

/** Rows found by an identifier or a ZIP: one is the answer, several a list to choose from. */
export function decideAll(rows: Row[]): Resolution {
  if (rows.length === 0) return { kind: 'not_found', near: [] };
  if (rows.length === 1) return { kind: 'found', row: rows[0] as Row };
  return { kind: 'ambiguous', rows };
}
