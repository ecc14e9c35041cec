import {
  type Confidence,
  type Property,
  type PropertyAttributes,
  US_STATES,
} from '../../../../contract/index.ts';
import { formatArea, formatCount, formatPropertyType, formatUsd } from './format.ts';
import { longDate } from './verification.ts';

/*
 * PropLens's words for what a record says, defined once: the record, the results table, the comparison, the
 * printout, the charts and the export all read them here. Adding an attribute is one row in ATTRIBUTES.
 */

export const CONFIDENCES: readonly Confidence[] = ['high', 'medium', 'low'];

/** "High", as a column value or a chart label; confidenceText says "High confidence". */
export const CONFIDENCE_WORD: Readonly<Record<Confidence, string>> = {
  high: 'High',
  medium: 'Medium',
  low: 'Low',
};

export const confidenceText = (level: Confidence) => `${CONFIDENCE_WORD[level]} confidence`;

/** Higher is more reliable: the comparison's first rule. */
export const CONFIDENCE_RANK: Readonly<Record<Confidence, number>> = { high: 3, medium: 2, low: 1 };

/** Kinds of source the service names, in words; an unknown kind is shown as sent. */
const SOURCE_KINDS: Readonly<Record<string, { text: string; rank: number }>> = {
  assessor: { text: 'Assessor record', rank: 3 },
  recorder: { text: 'Recorded deed', rank: 3 },
  survey: { text: 'Survey record', rank: 3 },
  revenue: { text: 'State revenue record', rank: 2 },
  mls: { text: 'MLS listing', rank: 2 },
  permits: { text: 'Building permit', rank: 1 },
};

export const sourceKindText = (kind: string | null) =>
  kind ? (Object.hasOwn(SOURCE_KINDS, kind) ? (SOURCE_KINDS[kind]?.text ?? kind) : kind) : null;

/** How authoritative a kind of source is (3 = public record), 0 when unknown: the comparison's tie-break. */
export const sourceKindRank = (kind: string | null) =>
  kind !== null && Object.hasOwn(SOURCE_KINDS, kind) ? (SOURCE_KINDS[kind]?.rank ?? 0) : 0;

type AttributeField = keyof Omit<PropertyAttributes, 'other'>;

export interface AttributeSpec {
  field: AttributeField;
  /** The export's column. */
  column: string;
  /** On screen and on paper; null: part of the address, not listed as a fact. */
  label: string | null;
  /** The value in words; absent, the value as sent. */
  format?: (value: never) => string;
}

/** Every attribute of a record, in the order the record, the comparison and the export list them. */
export const ATTRIBUTES: readonly AttributeSpec[] = [
  { field: 'streetNumber', column: 'street_number', label: null },
  { field: 'streetName', column: 'street_name', label: null },
  { field: 'unit', column: 'unit', label: 'Unit' },
  { field: 'city', column: 'city', label: null },
  { field: 'state', column: 'state', label: null },
  { field: 'zip', column: 'zip', label: null },
  { field: 'propertyType', column: 'property_type', label: 'Property type', format: formatPropertyType },
  { field: 'unitCount', column: 'unit_count', label: 'Units on record', format: formatCount },
  { field: 'parcelNumber', column: 'parcel_number', label: 'Parcel number' },
  { field: 'county', column: 'county', label: 'County' },
  { field: 'yearBuilt', column: 'year_built', label: 'Year built', format: (n: number) => String(n) },
  { field: 'livingAreaSqft', column: 'living_area_sqft', label: 'Living area', format: formatArea },
  { field: 'lotSizeSqft', column: 'lot_size_sqft', label: 'Lot size', format: formatArea },
  { field: 'bedrooms', column: 'bedrooms', label: 'Bedrooms', format: formatCount },
  { field: 'bathrooms', column: 'bathrooms', label: 'Bathrooms', format: formatCount },
  { field: 'assessedValue', column: 'assessed_value', label: 'Assessed value', format: formatUsd },
  { field: 'lastSalePrice', column: 'last_sale_price', label: 'Last sale price', format: formatUsd },
  { field: 'lastSaleDate', column: 'last_sale_date', label: 'Last sale date', format: longDate },
];

/** One attribute of a record in words; null when the record does not say. */
export function attributeText(p: Property, spec: AttributeSpec): string | null {
  const value = p.attributes[spec.field];
  if (value === null || value === undefined || value === '') return null;
  return spec.format ? (spec.format as (v: unknown) => string)(value) : String(value);
}

/** Field names the upstream sent that we do not know: "flood_zone" -> "Flood zone". */
export function humanizeField(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase()
    .replace(/^./, (c) => c.toUpperCase());
}

/** The facts a record lists, labelled: the known attributes in order, then whatever else the service sent. */
export function recordFacts(p: Property): [label: string, text: string][] {
  const facts: [string, string][] = [];
  for (const spec of ATTRIBUTES) {
    const text = spec.label ? attributeText(p, spec) : null;
    if (spec.label && text !== null) facts.push([spec.label, text]);
  }
  for (const [name, value] of Object.entries(p.attributes.other ?? {}))
    if (value !== '') facts.push([humanizeField(name), value]);
  return facts;
}

/**
 * A source as agencies are told apart: its name and the state it serves ("Lincoln County Assessor (NE)": there
 * is a Lincoln County in 24 states). A name that already says its state ("Texas Department of Revenue") is
 * left as it is. The chart, the source filter and the comparison group and name sources by this.
 */
export function agencyOf(p: Pick<Property, 'source' | 'attributes'>): string {
  const state = p.attributes.state?.toUpperCase();
  const name = state ? US_STATES[state] : undefined;
  if (!state || !name || p.source.toLowerCase().includes(name.toLowerCase())) return p.source;
  return `${p.source} (${state})`;
}
