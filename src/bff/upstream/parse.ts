import {
  type Candidate,
  Confidence,
  NotFoundReason,
  type Property,
  type PropertyAttributes,
} from '../../contract/index.ts';

/**
 * Tolerant reading of whatever the upstream sends. The interface leaves the envelope, the id field's name,
 * date formats, the reset format and error bodies "not shown", so every function here accepts each form a
 * reasonable provider might use, and rejects what it cannot read rather than guess.
 * Every upstream byte is untrusted: strings are capped and stripped of control characters.
 */

export const ID_FIELDS = ['property_id', 'id', 'propertyId', 'property_identifier'] as const;

const MAX_TEXT = 300;

export class UpstreamFormatError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A field of an upstream object, only if the object itself has it: `raw.constructor` or `raw.toString` would
 * otherwise read Object.prototype's functions, and a field named `__proto__` is data, never a prototype.
 */
function own(raw: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(raw, name) ? raw[name] : undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function cleanText(v: unknown, max = MAX_TEXT): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).replace(CONTROL, ' ').trim();
  return s === '' ? null : s.slice(0, max);
}

/** Unwraps `{ data: x }`, `{ property: x }`, `{ account: x }`, `{ result: x }`; returns bare objects as they are. */
export function unwrap(body: unknown, names: readonly string[]): Record<string, unknown> | null {
  if (!isRecord(body)) return null;
  for (const name of ['data', 'result', ...names]) {
    const inner = own(body, name);
    if (isRecord(inner)) return inner;
  }
  return body;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDay(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * A calendar date as YYYY-MM-DD from `YYYY-MM-DD`, an ISO date-time (its calendar date in UTC), epoch
 * seconds or epoch milliseconds (told apart by magnitude), as number or numeric string. Null when unreadable
 * or outside 1900..2200.
 */
export function parseDate(value: unknown): string | null {
  if (typeof value === 'string') {
    const s = value.trim();
    const day = DAY.exec(s);
    if (day) {
      const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
      return validDay(y, m, d) && y >= 1900 && y <= 2200 ? s : null;
    }
    if (/^\d{4}-\d{2}-\d{2}T/.test(s)) {
      const ms = Date.parse(s);
      return Number.isNaN(ms) ? null : inRange(ms);
    }
    if (/^-?\d+(\.\d+)?$/.test(s)) return parseDate(Number(s));
    return null;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Seconds since 1970 stay below 1e11 until the year 5138; milliseconds pass it in 1973.
    return inRange(Math.abs(value) < 1e11 ? value * 1000 : value);
  }
  return null;
}

function inRange(ms: number): string | null {
  const year = new Date(ms).getUTCFullYear();
  if (year < 1900 || year > 2200) return null;
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * When the upstream will take requests again, as epoch ms on our clock, from X-RateLimit-Reset in any of:
 * epoch seconds, epoch milliseconds, seconds from now, or an HTTP-date. Absolute times are read against the
 * upstream's own `Date` header when it sent one, so a skewed clock on either side does not shift the wait.
 * The result is clamped to [now, now + maxAheadMs].
 */
export function parseReset(
  header: string | null | undefined,
  nowMs: number,
  upstreamDate?: string | null,
  maxAheadMs = 3_600_000,
): number | null {
  if (!header) return null;
  const text = header.trim();
  const theirNow = upstreamDate ? Date.parse(upstreamDate) : Number.NaN;
  const skew = Number.isNaN(theirNow) ? 0 : nowMs - theirNow;
  let at: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    if (n >= 1e11)
      at = n + skew; // epoch milliseconds
    else if (n >= 1e9)
      at = n * 1000 + skew; // epoch seconds (from 2001 on)
    else at = nowMs + n * 1000; // seconds from now
  } else {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) return null;
    at = ms + skew;
  }
  return Math.min(Math.max(at, nowMs), nowMs + maxAheadMs);
}

export interface UpstreamErrorInfo {
  code: string | null;
  message: string | null;
  candidates: Candidate[];
  building: Candidate | null;
  /** How many candidates there are in all, when the body says (an ambiguous answer lists only some). */
  total: number | null;
  /** Why nothing matched, when the body says in words this client knows. */
  reason: NotFoundReason | null;
}

/** An error body in any dialect: `{ error: { code, message } }`, `{ message }`, `{ error: "..." }` or text. */
export function parseErrorBody(text: string, idField: string | undefined): UpstreamErrorInfo {
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      code: null,
      message: cleanText(text.slice(0, 1000)),
      candidates: [],
      building: null,
      total: null,
      reason: null,
    };
  }
  if (!isRecord(body))
    return { code: null, message: null, candidates: [], building: null, total: null, reason: null };
  const error = own(body, 'error');
  const inner = isRecord(error) ? error : body;
  const message = cleanText(
    pick(inner, 'message', 'detail', 'title') ?? (typeof error === 'string' ? error : null),
  );
  const code = cleanText(pick(inner, 'code', 'type') ?? null, 60);
  const candidates = own(inner, 'candidates');
  const list = Array.isArray(candidates) ? candidates : [];
  const buildingRaw = own(inner, 'building');
  const building = isRecord(buildingRaw) ? toCandidate(buildingRaw, idField) : null;
  const total = num(pick(inner, 'total', 'total_count', 'count'));
  return {
    code,
    message,
    candidates: list
      .slice(0, 20)
      .flatMap((c) => (isRecord(c) ? [toCandidate(c, idField)].filter((x) => x !== null) : [])),
    building,
    // A count is a whole number no smaller than what was listed; anything else is not one.
    total: total !== null && Number.isSafeInteger(total) && total >= list.length ? total : null,
    reason: NotFoundReason.safeParse(own(inner, 'reason')).data ?? null,
  };
}

export function findId(raw: Record<string, unknown>, idField: string | undefined): string | null {
  const fields = idField ? [idField] : ID_FIELDS;
  for (const f of fields) {
    const v = cleanText(own(raw, f), 120);
    if (v !== null) return v;
  }
  return null;
}

function toCandidate(raw: Record<string, unknown>, idField: string | undefined): Candidate | null {
  const id = findId(raw, idField);
  const address = cleanText(pick(raw, 'address', 'formatted_address')) ?? composeAddress(raw);
  if (!id || !address) return null;
  const confidence = Confidence.safeParse(cleanText(own(raw, 'confidence'), 20)?.toLowerCase());
  return confidence.success ? { id, address, confidence: confidence.data } : { id, address };
}

function pick(raw: Record<string, unknown>, ...names: string[]): unknown {
  for (const n of names) {
    const v = own(raw, n);
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

function composeAddress(raw: Record<string, unknown>): string | null {
  const line1 = [
    pick(raw, 'street_number', 'streetNumber', 'house_number'),
    pick(raw, 'street_name', 'streetName', 'street'),
  ]
    .map((v) => cleanText(v))
    .filter(Boolean)
    .join(' ');
  const unit = cleanText(pick(raw, 'unit'));
  const city = cleanText(pick(raw, 'city'));
  const stateZip = [cleanText(pick(raw, 'state')), cleanText(pick(raw, 'zip', 'postal_code', 'zipCode'))]
    .filter(Boolean)
    .join(' ');
  const parts = [line1 + (unit ? ` Unit ${unit}` : ''), city, stateZip].filter((p) => p && p.trim() !== '');
  return parts.length > 0 ? parts.join(', ') : null;
}

/** The kind of source, from the upstream's own field or, failing that, from the source's name. */
export function sourceKindOf(source: string, declared: unknown): string | null {
  const d = cleanText(declared, 30)?.toLowerCase();
  if (d) return d;
  if (/assessor|appraisal district|property appraiser/i.test(source)) return 'assessor';
  if (/recorder|deeds|register of|clerk/i.test(source)) return 'recorder';
  if (/revenue|taxation|tax (commission|office)/i.test(source)) return 'revenue';
  if (/\bmls\b|multiple listing/i.test(source)) return 'mls';
  if (/permit/i.test(source)) return 'permits';
  if (/survey/i.test(source)) return 'survey';
  return null;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/**
 * A record's quantity as a number we can show as sent: 0 or more, no larger than the attribute can be, and never
 * one JavaScript would round (`99999999999999999999` read as 1e20 is another number than the one sent). Past
 * that it is dropped, as an unreadable field is, rather than shown wrong.
 */
const ATTRIBUTE_MAX: Partial<Record<keyof PropertyAttributes, number>> = {
  yearBuilt: 2200,
  bedrooms: 10_000,
  bathrooms: 10_000,
  unitCount: 1_000_000,
};
function quantity(name: keyof PropertyAttributes, value: unknown): number | null {
  const n = num(value);
  if (n === null || n < 0 || n > (ATTRIBUTE_MAX[name] ?? Number.MAX_SAFE_INTEGER)) return null;
  return Number.isInteger(n) && !Number.isSafeInteger(n) ? null : n;
}

const KNOWN = new Map<string, [keyof PropertyAttributes, 'text' | 'number' | 'date']>(
  Object.entries({
    street_number: ['streetNumber', 'text'],
    streetNumber: ['streetNumber', 'text'],
    street_name: ['streetName', 'text'],
    streetName: ['streetName', 'text'],
    unit: ['unit', 'text'],
    city: ['city', 'text'],
    state: ['state', 'text'],
    zip: ['zip', 'text'],
    postal_code: ['zip', 'text'],
    county: ['county', 'text'],
    parcel_number: ['parcelNumber', 'text'],
    parcelNumber: ['parcelNumber', 'text'],
    apn: ['parcelNumber', 'text'],
    property_type: ['propertyType', 'text'],
    propertyType: ['propertyType', 'text'],
    year_built: ['yearBuilt', 'number'],
    yearBuilt: ['yearBuilt', 'number'],
    living_area_sqft: ['livingAreaSqft', 'number'],
    livingAreaSqft: ['livingAreaSqft', 'number'],
    lot_size_sqft: ['lotSizeSqft', 'number'],
    lotSizeSqft: ['lotSizeSqft', 'number'],
    bedrooms: ['bedrooms', 'number'],
    bathrooms: ['bathrooms', 'number'],
    assessed_value: ['assessedValue', 'number'],
    assessedValue: ['assessedValue', 'number'],
    last_sale_date: ['lastSaleDate', 'date'],
    lastSaleDate: ['lastSaleDate', 'date'],
    last_sale_price: ['lastSalePrice', 'number'],
    lastSalePrice: ['lastSalePrice', 'number'],
    unit_count: ['unitCount', 'number'],
    unitCount: ['unitCount', 'number'],
    units: ['unitCount', 'number'],
  } satisfies Record<string, [keyof PropertyAttributes, 'text' | 'number' | 'date']>),
);

/** Names that mean something to JavaScript objects: never copied into ours, even as data. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const CORE = new Set([
  ...ID_FIELDS,
  'address',
  'formatted_address',
  'source',
  'source_kind',
  'sourceKind',
  'confidence',
  'last_verified',
  'lastVerified',
]);

/**
 * One property record into our contract. A record without id, source, confidence or last_verified is an
 * upstream error, never data: a reviewer must not see a record whose reliability cannot be judged.
 */
export function toProperty(body: unknown, idField: string | undefined, fallbackAddress?: string): Property {
  const raw = unwrap(body, ['property', 'record']);
  if (!raw) throw new UpstreamFormatError('the record is not an object');
  const id = findId(raw, idField);
  const source = cleanText(own(raw, 'source'));
  const confidence = Confidence.safeParse(cleanText(own(raw, 'confidence'), 20)?.toLowerCase());
  const lastVerified = parseDate(pick(raw, 'last_verified', 'lastVerified'));
  const missing = [
    id === null && `property identifier (${idField ?? ID_FIELDS.join('/')})`,
    source === null && 'source',
    !confidence.success && 'confidence (high, medium or low)',
    lastVerified === null && 'last_verified (a date)',
  ].filter(Boolean);
  if (missing.length > 0 || id === null || source === null || !confidence.success || lastVerified === null) {
    throw new UpstreamFormatError(`the record lacks a readable ${missing.join(', ')}`);
  }
  const attributes: PropertyAttributes = {};
  const other = new Map<string, string>();
  for (const [field, value] of Object.entries(raw)) {
    if (CORE.has(field) || field === idField || value === null || value === undefined) continue;
    const known = KNOWN.get(field);
    if (known) {
      const [name, kind] = known;
      const parsed =
        kind === 'number' ? quantity(name, value) : kind === 'date' ? parseDate(value) : cleanText(value);
      if (parsed !== null) (attributes as Record<string, unknown>)[name] = parsed;
    } else if (other.size < 30 && /^[A-Za-z][\w]{0,60}$/.test(field) && !UNSAFE_KEYS.has(field)) {
      const text = typeof value === 'boolean' ? (value ? 'yes' : 'no') : cleanText(value, 200);
      if (text !== null) other.set(field, text);
    }
  }
  if (other.size > 0) attributes.other = Object.fromEntries(other);
  return {
    id,
    address:
      cleanText(pick(raw, 'address', 'formatted_address')) ?? composeAddress(raw) ?? fallbackAddress ?? id,
    source,
    sourceKind: sourceKindOf(source, pick(raw, 'source_kind', 'sourceKind')),
    confidence: confidence.data,
    lastVerified,
    attributes,
  };
}

/** A page of a list endpoint: `{ data: [...] }`, `{ items: [...] }`, `{ results: [...] }` or a bare array. */
export function toPage(
  body: unknown,
  idField: string | undefined,
): { items: Property[]; nextCursor: string | null } {
  const list = Array.isArray(body)
    ? body
    : isRecord(body)
      ? ['data', 'items', 'results', 'properties'].map((n) => own(body, n)).find(Array.isArray)
      : undefined;
  if (!list) throw new UpstreamFormatError('the page has no list of records');
  const next = isRecord(body) ? cleanText(pick(body, 'next_cursor', 'nextCursor'), 2000) : null;
  return { items: list.slice(0, 100).map((r) => toProperty(r, idField)), nextCursor: next };
}

export function toAccount(body: unknown): { id: string | null; name: string; plan: string | null } {
  const raw = unwrap(body, ['account', 'user']) ?? {};
  const plan = cleanText(pick(raw, 'plan', 'tier', 'subscription'), 40)?.toLowerCase() ?? null;
  // The account's own id, when the service names it: every key of one account then shares its reviews.
  const id = cleanText(pick(raw, 'id', 'account_id', 'accountId', 'organization_id'), 200);
  return {
    id,
    name: cleanText(pick(raw, 'name', 'account_name', 'organization'), 120) ?? 'Your account',
    plan,
  };
}
