import { z } from 'zod';
import { Confidence, IsoDate, Plan } from './common.ts';

/** The BFF's own API: the only thing the browser talks to. Stable whatever the upstream's dialect. */

export const ApiErrorCode = z.enum([
  'bad_request',
  'csrf',
  'unauthenticated',
  'invalid_key',
  'plan_not_eligible',
  'not_found',
  'ambiguous',
  'unit_not_found',
  'rate_limited',
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_invalid',
  'payload_too_large',
  'method_not_allowed',
  'internal',
]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

export const Candidate = z.object({ id: z.string(), address: z.string() });
export type Candidate = z.infer<typeof Candidate>;

export const ApiErrorBody = z.object({
  error: z.object({
    code: ApiErrorCode,
    message: z.string(),
    candidates: z.array(Candidate).optional(),
    /** With rate_limited: when the upstream accepts requests again (ISO date-time). */
    resetAt: z.string().optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

export const Account = z.object({
  name: z.string(),
  /** null when the upstream confirmed the key but did not say which plan it is on. */
  plan: Plan.nullable(),
});
export type Account = z.infer<typeof Account>;

export const SessionResponse = z.object({ account: Account });
export type SessionResponse = z.infer<typeof SessionResponse>;

export const CreateSessionRequest = z.object({
  apiKey: z
    .string()
    .trim()
    .min(1, 'Paste your API key.')
    .max(256, 'That is longer than any API key.')
    .regex(/^[\x21-\x7e]+$/, 'An API key has no spaces or special characters.'),
});

export const DemoKey = z.object({ key: z.string(), plan: Plan, label: z.string() });
export type DemoKey = z.infer<typeof DemoKey>;

export const AppConfig = z.object({
  /** Present only when the upstream is the embedded reference service: its demo keys are public. */
  demoKeys: z.array(DemoKey).nullable(),
  salesContact: z.string().nullable(),
});
export type AppConfig = z.infer<typeof AppConfig>;

export const RateLimit = z.object({
  limit: z.number().int().nonnegative(),
  remaining: z.number().int().nonnegative(),
  resetAt: z.string(),
});
export type RateLimit = z.infer<typeof RateLimit>;

const num = z.number().nullable().optional();
export const PropertyAttributes = z
  .object({
    streetNumber: z.string().nullable().optional(),
    streetName: z.string().nullable().optional(),
    unit: z.string().nullable().optional(),
    city: z.string().nullable().optional(),
    state: z.string().nullable().optional(),
    zip: z.string().nullable().optional(),
    county: z.string().nullable().optional(),
    parcelNumber: z.string().nullable().optional(),
    propertyType: z.string().nullable().optional(),
    yearBuilt: num,
    livingAreaSqft: num,
    lotSizeSqft: num,
    bedrooms: num,
    bathrooms: num,
    assessedValue: num,
    lastSaleDate: IsoDate.nullable().optional(),
    lastSalePrice: num,
    /** Fields the upstream sent that we do not know, as display strings. */
    other: z.record(z.string(), z.string()).optional(),
  })
  .strict();
export type PropertyAttributes = z.infer<typeof PropertyAttributes>;

export const Property = z.object({
  id: z.string(),
  address: z.string(),
  source: z.string(),
  sourceKind: z.string().nullable(),
  confidence: Confidence,
  lastVerified: IsoDate,
  attributes: PropertyAttributes,
});
export type Property = z.infer<typeof Property>;

export const ResolveResponse = z.object({ property: Property, rateLimit: RateLimit.nullable() });
export type ResolveResponse = z.infer<typeof ResolveResponse>;

export const SearchResponse = z.object({
  items: z.array(Property),
  nextCursor: z.string().optional(),
  rateLimit: RateLimit.nullable(),
});
export type SearchResponse = z.infer<typeof SearchResponse>;
