import * as z from 'zod/mini';
import { Confidence, IsoDate, Plan } from './common.ts';

/**
 * The Property Intelligence Service's wire format in its default dialect, as our reference implementation
 * speaks it. These schemas generate the reference's OpenAPI document. The BFF does not trust them to
 * describe a real upstream: it parses tolerantly (see src/bff/upstream/parse.ts).
 */

const described = <T extends z.ZodMiniType>(schema: T, text: string): T =>
  schema.check(z.describe(text)) as T;

export const UpstreamAccount = z.object({ id: z.string(), name: z.string(), plan: Plan });
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
  'commercial',
  'government',
]);
export type PropertyType = z.infer<typeof PropertyType>;

export const UpstreamProperty = z.object({
  property_id: z.string(),
  address: described(z.string(), 'One-line USPS-style formatted address.'),
  street_number: z.string(),
  street_name: z.string(),
  unit: z.nullable(z.string()),
  city: z.string(),
  state: z.string().check(z.length(2)),
  zip: z.string().check(z.regex(/^\d{5}$/)),
  county: z.string(),
  source: described(z.string(), 'The originating agency or system of the record.'),
  source_kind: SourceKind,
  confidence: described(Confidence, 'Reflects source quality and recency.'),
  last_verified: described(IsoDate, 'When the record was last confirmed against its source.'),
  parcel_number: z.string(),
  property_type: PropertyType,
  year_built: z.nullable(z.int()),
  living_area_sqft: z.nullable(z.int()),
  lot_size_sqft: z.nullable(z.int()),
  bedrooms: z.nullable(z.int()),
  bathrooms: z.nullable(z.number()),
  assessed_value: described(z.nullable(z.int()), 'US dollars'),
  last_sale_date: z.nullable(IsoDate),
  last_sale_price: described(z.nullable(z.int()), 'US dollars'),
  unit_count: z.optional(
    described(
      z.nullable(z.int()),
      'A building whose units have records of their own: how many. Null or absent for anything else.',
    ),
  ),
});
export type UpstreamProperty = z.infer<typeof UpstreamProperty>;

export const UpstreamCandidate = z.object({
  property_id: z.string(),
  address: z.string(),
  // Optional: a client must cope with an upstream whose candidates do not say; the reference always does.
  confidence: z.optional(described(Confidence, 'The confidence of the record this candidate stands for.')),
});
export type UpstreamCandidate = z.infer<typeof UpstreamCandidate>;

export const UpstreamSearchPage = z.object({
  data: z.array(UpstreamProperty),
  next_cursor: z.optional(described(z.string(), 'Present when more results are available.')),
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

/** Why nothing matched, where a service can tell. */
export const NotFoundReason = z.enum(['no_such_house', 'no_such_street', 'place_not_covered']);
export type NotFoundReason = z.infer<typeof NotFoundReason>;

export const UpstreamError = z.object({
  error: z.object({
    code: UpstreamErrorCode,
    message: z.string(),
    candidates: z.optional(z.array(UpstreamCandidate)),
    total: z.optional(
      described(
        z.int(),
        'With ambiguous_address: how many properties match in all. The candidates are the first of them by state, city and address; GET /properties/search with the same text lists them all.',
      ),
    ),
    building: z.optional(
      described(UpstreamCandidate, 'With unit_not_found: the building the unit was sought in.'),
    ),
    reason: z.optional(
      described(
        NotFoundReason,
        'With address_not_found, where the service can tell: no_such_house (the street is known in the place named, the number is not), no_such_street (the place is known, the street is not), place_not_covered (the service holds no property in the ZIP code named).',
      ),
    ),
  }),
});
export type UpstreamError = z.infer<typeof UpstreamError>;
