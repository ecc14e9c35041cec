import * as z from 'zod/mini';
import type { PropertyAttributes } from './api.ts';
import { IsoDate, wholeNumberParam } from './common.ts';

/*
 * GET /api/reviews/:id/export.csv and .json: every row of one run of a review, streamed by the BFF (the file's
 * own columns first, then PropLens's). The browser downloads it; it never builds an export itself.
 */

export const REVIEW_EXPORT_FORMATS = ['csv', 'json'] as const;
export type ReviewExportFormat = (typeof REVIEW_EXPORT_FORMATS)[number];

/** Parsed as written: V8 reads 2026-02-30 as 2 March, so the day must come back as it went in. */
function isRealDay(s: string): boolean {
  const ms = Date.parse(s);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === s;
}

export const ReviewExportQuery = z.object({
  /** The run exported; default the latest. */
  run: z.optional(wholeNumberParam('run').check(z.positive('run: 1 or more'))),
  /**
   * The reader's calendar day (YYYY-MM-DD): the verification ages are counted to it, as the screen counts them,
   * and the file is named after it. Default: today in UTC.
   */
  today: z.optional(IsoDate.check(z.refine(isRealDay, 'today: a real day as YYYY-MM-DD'))),
  /** The CSV's separator: comma (default) or semicolon (Excel where a comma is the decimal separator). */
  separator: z.optional(z.enum(['comma', 'semicolon'], 'separator: comma or semicolon')),
});
export type ReviewExportQuery = z.infer<typeof ReviewExportQuery>;

type AttributeField = keyof Omit<PropertyAttributes, 'other'>;

/**
 * A record's attributes as export columns, in the order the record lists them (the web's vocabulary names the
 * same fields for the screen; its test holds the two lists to one order).
 */
export const EXPORT_ATTRIBUTE_COLUMNS: readonly { field: AttributeField; column: string }[] = [
  { field: 'streetNumber', column: 'street_number' },
  { field: 'streetName', column: 'street_name' },
  { field: 'unit', column: 'unit' },
  { field: 'city', column: 'city' },
  { field: 'state', column: 'state' },
  { field: 'zip', column: 'zip' },
  { field: 'propertyType', column: 'property_type' },
  { field: 'unitCount', column: 'unit_count' },
  { field: 'parcelNumber', column: 'parcel_number' },
  { field: 'county', column: 'county' },
  { field: 'yearBuilt', column: 'year_built' },
  { field: 'livingAreaSqft', column: 'living_area_sqft' },
  { field: 'lotSizeSqft', column: 'lot_size_sqft' },
  { field: 'bedrooms', column: 'bedrooms' },
  { field: 'bathrooms', column: 'bathrooms' },
  { field: 'assessedValue', column: 'assessed_value' },
  { field: 'lastSalePrice', column: 'last_sale_price' },
  { field: 'lastSaleDate', column: 'last_sale_date' },
];
