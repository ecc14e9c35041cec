import { z } from 'zod';
import { Confidence, IsoDate, Plan } from './common.ts';

/**
 * The Property Intelligence Service's wire format in its default dialect, as our reference implementation
 * speaks it. These schemas generate the reference's OpenAPI document. The BFF does not trust them to
 * describe a real upstream: it parses tolerantly (see src/bff/upstream/parse.ts).
 */

export const UpstreamAccount = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
});
export type UpstreamAccount = z.infer<typeof UpstreamAccount>;

export const SourceKind = z.enum(['assessor', 'recorder', 'revenue', 'mls', 'permits', 'survey']);
export type SourceKind = z.infer<typeof SourceKind>;

export const PropertyType = z.enum([
  'single_family',
  'condominium',
  'townhouse',
  'multi_family',
  'apartment_unit',
  'mobile_home',
  'vacant_land',
]);
export type PropertyType = z.infer<typeof PropertyType>;

export const UpstreamProperty = z.object({
  property_id: z.string(),
  address: z.string().describe('One-line USPS-style formatted address.'),
  street_number: z.string(),
  street_name: z.string(),
  unit: z.string().nullable(),
  city: z.string(),
  state: z.string().length(2),
  zip: z.string().regex(/^\d{5}$/),
  county: z.string(),
  source: z.string().describe('The originating agency or system of the record.'),
  source_kind: SourceKind,
  confidence: Confidence,
  last_verified: IsoDate,
  parcel_number: z.string(),
  property_type: PropertyType,
  year_built: z.number().int().nullable(),
  living_area_sqft: z.number().int().nullable(),
  lot_size_sqft: z.number().int().nullable(),
  bedrooms: z.number().int().nullable(),
  bathrooms: z.number().nullable(),
  assessed_value: z.number().int().nullable().describe('US dollars'),
  last_sale_date: IsoDate.nullable(),
  last_sale_price: z.number().int().nullable().describe('US dollars'),
});
export type UpstreamProperty = z.infer<typeof UpstreamProperty>;

export const UpstreamCandidate = z.object({ property_id: z.string(), address: z.string() });
export type UpstreamCandidate = z.infer<typeof UpstreamCandidate>;

export const UpstreamSearchPage = z.object({
  data: z.array(UpstreamProperty),
  next_cursor: z.string().optional().describe('Present when more results are available.'),
});

export const UpstreamErrorCode = z.enum([
  'unauthorized',
  'plan_not_eligible',
  'rate_limited',
  'invalid_address',
  'invalid_query',
  'invalid_cursor',
  'address_not_found',
  'ambiguous_address',
  'unit_not_found',
  'not_found',
  'internal',
  'unavailable',
]);
export type UpstreamErrorCode = z.infer<typeof UpstreamErrorCode>;

export const UpstreamError = z.object({
  error: z.object({
    code: UpstreamErrorCode,
    message: z.string(),
    candidates: z.array(UpstreamCandidate).optional(),
    building: UpstreamCandidate.optional().describe(
      'With unit_not_found: the building the unit was sought in.',
    ),
  }),
});
export type UpstreamError = z.infer<typeof UpstreamError>;
