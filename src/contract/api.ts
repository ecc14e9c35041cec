import * as z from 'zod/mini';
import { Confidence, displayName, IsoDate, Plan, text as safeText } from './common.ts';
import { MatchExplanation } from './match.ts';
import { NotFoundReason } from './upstream.ts';

/** The BFF's own API: the only thing the browser talks to. Stable whatever the upstream's dialect. */

/**
 * Every state-changing or API call from the SPA carries this header: a cross-site form or image cannot set it,
 * so the BFF's CSRF check refuses requests without it.
 */
export const CSRF_HEADER = { name: 'X-Requested-With', value: 'proplens' } as const;

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
  /** The shared session/cache store (Redis) is unreachable: 503, try again shortly. */
  'store_unavailable',
  /** The request clashes with the resource's state (e.g. Check again while a run is unfinished): 409. */
  'conflict',
  /** The audit trail cannot be written and its buffer is full: the lookup is refused rather than unrecorded. */
  'audit_unavailable',
  /** Too many sign-ins from one client address in a minute: 429 with Retry-After. */
  'too_many_sign_ins',
  /** Too many live views (review event streams) open for one sign-in or one account: 429. */
  'too_many_streams',
  /** A review that would take the account past REVIEW_MAX_PENDING_ROWS rows waiting: 409. */
  'quota_exceeded',
  /** A review row with no address (and no parcel number to look up instead): never sent to the service. */
  'no_address',
]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

export const Candidate = z.object({
  id: z.string(),
  address: z.string(),
  /** The record's confidence, when the service states it for candidates, so a pick is informed. */
  confidence: z.optional(Confidence),
});
export type Candidate = z.infer<typeof Candidate>;

export const RateLimit = z.object({
  limit: z.int().check(z.nonnegative()),
  remaining: z.int().check(z.nonnegative()),
  resetAt: z.string(),
  /**
   * The window's length in seconds as the BFF has observed it (the upstream does not state it), so a client
   * can say how many lookups a minute the limit allows. Plain: a minute's window observed as 61 s is 60 (within
   * 2 s of whole minutes, 1 s of a multiple of 5 s). Absent until known.
   */
  windowS: z.optional(z.int().check(z.positive())),
});
export type RateLimit = z.infer<typeof RateLimit>;

export const ApiErrorBody = z.object({
  error: z.object({
    code: ApiErrorCode,
    message: z.string(),
    candidates: z.optional(z.array(Candidate)),
    /** With rate_limited: when the upstream accepts requests again (ISO date-time). */
    resetAt: z.optional(z.string()),
    /** With ambiguous: how many candidates there are in all, when the service says (more than are listed). */
    total: z.optional(z.int().check(z.nonnegative())),
    /** With not_found: why, when the service said. */
    reason: z.optional(NotFoundReason),
    /**
     * The account's rate limit after this request, when it was made in a session: a not-found or ambiguous
     * answer spent a request too, and the meter must say so.
     */
    rateLimit: z.optional(RateLimit),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

export const Account = z.object({
  name: z.string(),
  /** null when the upstream confirmed the key but did not say which plan it is on. */
  plan: z.nullable(Plan),
});
export type Account = z.infer<typeof Account>;

/** The account, and the key's rate-limit budget as last reported (so the header can show it at once). */
export const SessionResponse = z.object({
  account: Account,
  /**
   * An opaque, stable id of the key's account for scoping what the browser keeps (reviews, recent searches).
   * Derived from the key's hash with a one-way function: it reveals nothing of the key.
   */
  accountId: z.string(),
  /** Signed in with one of the embedded reference service's public demo keys (its data is cleared on sign-out). */
  demo: z.boolean(),
  /**
   * The fingerprint of this session's own key, as reviews name who started them (`createdBy`): a one-way name,
   * never the key or its hash. In a demo every visitor has a key of their own in one account, so this says
   * which of the account's reviews are this visitor's. The BFF always sends it; optional so answers recorded
   * before it existed still parse (nothing is then counted as this key's).
   */
  keyFingerprint: z.optional(z.string()),
  /** The name the holder gave this key ("Dana Ortiz"), shown beside its fingerprint; null when none was given. */
  keyName: z.optional(z.nullable(z.string())),
  rateLimit: z.optional(z.nullable(RateLimit)),
});
export type SessionResponse = z.infer<typeof SessionResponse>;

/** The longest name a key can be given. */
export const MAX_KEY_NAME = 60;

/** A person's name on a key: shown in reviews, History, Activity and exports beside the key's fingerprint. */
export const keyName = displayName('name').check(
  z.trim(),
  z.maxLength(MAX_KEY_NAME, `A name is at most ${MAX_KEY_NAME} characters.`),
);

/** PUT /api/session/name: this key's name; empty takes the name off. */
export const KeyNameRequest = z.object({
  name: z.union([z.literal(''), keyName]),
  /**
   * The key the form was showing (its fingerprint): refused (409) when the session holds another key now (another
   * tab signed in with a colleague's), so a name never lands on a key its writer did not see.
   */
  fingerprint: z.optional(z.string().check(z.regex(/^[0-9a-f]{8}$/, 'fingerprint: 8 hex digits'))),
});
export type KeyNameRequest = z.infer<typeof KeyNameRequest>;

/** GET /api/account/keys: the names the account's keys were given, by fingerprint. */
export const KeyNamesResponse = z.object({
  keys: z.array(z.object({ fingerprint: z.string(), name: z.string() })),
});
export type KeyNamesResponse = z.infer<typeof KeyNamesResponse>;

export const CreateSessionRequest = z.object({
  apiKey: safeText('apiKey').check(
    z.trim(),
    z.minLength(1, 'Paste your API key.'),
    z.maxLength(256, 'That is longer than any API key.'),
    z.regex(/^[\x21-\x7e]+$/, 'An API key has no spaces or special characters.'),
  ),
  /** "Your name on this key", when given at sign-in (kept for the key; empty leaves the name as it was). */
  name: z.optional(keyName),
});
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

export const DemoKey = z.object({ key: z.string(), plan: Plan, label: z.string() });
export type DemoKey = z.infer<typeof DemoKey>;

/**
 * A demo key as one visitor uses it: `<demo key>~<visitor>`. The embedded reference reads it as the demo key's
 * account, with a rate-limit window of its own, so one prospect's lookups never spend another's budget.
 */
export const demoVisitorKey = (key: string, visitor: string) => `${key}~${visitor}`;
const VISITOR_KEY = /^(pi_demo_[a-z0-9_]+)~[A-Za-z0-9_-]{8,64}$/;
/** The demo key a visitor key was made from; null for any other key. */
export const demoKeyOf = (key: string): string | null => VISITOR_KEY.exec(key)?.[1] ?? null;

export const AppConfig = z.object({
  /** Present only when the upstream is the embedded reference service: its demo keys are public. */
  demoKeys: z.nullable(z.array(DemoKey)),
  salesContact: z.nullable(z.string()),
});
export type AppConfig = z.infer<typeof AppConfig>;

const num = z.optional(z.nullable(z.number()));
const text = z.optional(z.nullable(z.string()));
export const PropertyAttributes = z.strictObject({
  streetNumber: text,
  streetName: text,
  unit: text,
  city: text,
  state: text,
  zip: text,
  county: text,
  parcelNumber: text,
  propertyType: text,
  yearBuilt: num,
  livingAreaSqft: num,
  lotSizeSqft: num,
  bedrooms: num,
  bathrooms: num,
  assessedValue: num,
  lastSaleDate: z.optional(z.nullable(IsoDate)),
  lastSalePrice: num,
  /** A building whose units have records of their own: how many. */
  unitCount: num,
  /** Fields the upstream sent that we do not know, as display strings. */
  other: z.optional(z.record(z.string(), z.string())),
});
export type PropertyAttributes = z.infer<typeof PropertyAttributes>;

export const Property = z.object({
  id: z.string(),
  address: z.string(),
  source: z.string(),
  sourceKind: z.nullable(z.string()),
  confidence: Confidence,
  lastVerified: IsoDate,
  attributes: PropertyAttributes,
});
export type Property = z.infer<typeof Property>;

export const ResolveResponse = z.object({
  property: Property,
  rateLimit: z.nullable(RateLimit),
  /** How the record's address differs from what was typed; absent or null when only in form. */
  match: z.optional(z.nullable(MatchExplanation)),
});
export type ResolveResponse = z.infer<typeof ResolveResponse>;

/** The codes of a lookup the service answered without one record: expected answers, not failures. */
export const ResolveMissCode = z.enum(['not_found', 'ambiguous', 'unit_not_found']);
export type ResolveMissCode = z.infer<typeof ResolveMissCode>;

/**
 * GET /api/properties/resolve when no one record matches: no property, or several, or a building without that
 * unit. An answer the person acts on (pick a candidate, add the ZIP code), so it comes as 200, not 404 or 409
 * (the browser logs every 4xx as an error in its console). The fields are those of ApiErrorBody's error, so
 * the page treats it as it would that refusal; genuine failures (400, 401, 429, 5xx) keep their statuses.
 */
export const ResolveMiss = z.object({
  miss: z.object({
    code: ResolveMissCode,
    message: z.string(),
    candidates: z.optional(z.array(Candidate)),
    /** With ambiguous: how many candidates there are in all, when the service says. */
    total: z.optional(z.int().check(z.nonnegative())),
    /** With not_found: why, when the service said. */
    reason: z.optional(NotFoundReason),
  }),
  /** The account's budget after this lookup: a miss spent a request too. */
  rateLimit: z.nullable(RateLimit),
});
export type ResolveMiss = z.infer<typeof ResolveMiss>;

/** Every 200 of GET /api/properties/resolve: a record (`property`), or why there is none (`miss`). */
export const ResolveAnswer = z.union([ResolveResponse, ResolveMiss]);
export type ResolveAnswer = z.infer<typeof ResolveAnswer>;

export const SearchResponse = z.object({
  items: z.array(Property),
  nextCursor: z.optional(z.string()),
  rateLimit: z.nullable(RateLimit),
});
export type SearchResponse = z.infer<typeof SearchResponse>;
