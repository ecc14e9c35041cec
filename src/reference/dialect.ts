/**
 * Every detail the interface document leaves "not shown", as a switch. A real provider picks one of each;
 * the BFF must cope with all of them, and its test suite proves it against every value here.
 */
export interface Dialect {
  /** Where the API key goes: `Authorization: Bearer`, an `X-API-Key` header, or an `api_key` query parameter. */
  auth: 'bearer' | 'header' | 'query';
  /** Name of the property identifier field. */
  id: 'property_id' | 'id' | 'propertyId';
  /** Envelope of single-object answers: bare, `{ data }`, or named (`{ property }`, `{ account }`). */
  envelope: 'bare' | 'data' | 'named';
  /** Format of `last_verified` (and other dates). */
  date: 'date' | 'datetime' | 'epoch-s' | 'epoch-ms';
  /** Format of `X-RateLimit-Reset`. */
  reset: 'epoch-s' | 'delta-s' | 'epoch-ms' | 'http-date';
  /** Error bodies: `{ error: { code, message } }`, `{ message }`, or plain text. */
  errors: 'json' | 'message' | 'text';
}

export const DEFAULT_DIALECT: Dialect = {
  auth: 'bearer',
  id: 'property_id',
  envelope: 'bare',
  date: 'date',
  reset: 'epoch-s',
  errors: 'json',
};

export const DIALECT_VALUES = {
  auth: ['bearer', 'header', 'query'],
  id: ['property_id', 'id', 'propertyId'],
  envelope: ['bare', 'data', 'named'],
  date: ['date', 'datetime', 'epoch-s', 'epoch-ms'],
  reset: ['epoch-s', 'delta-s', 'epoch-ms', 'http-date'],
  errors: ['json', 'message', 'text'],
} as const satisfies { [K in keyof Dialect]: readonly Dialect[K][] };

/**
 * Parses `REFERENCE_DIALECT`: `default`, or comma-separated `name=value` pairs over the default, e.g.
 * `auth=query,id=id,envelope=data,date=epoch-ms,reset=http-date,errors=text`.
 */
export function parseDialect(text: string | undefined): Dialect {
  const dialect: Dialect = { ...DEFAULT_DIALECT };
  const spec = (text ?? '').trim();
  if (spec === '' || spec === 'default') return dialect;
  const problems: string[] = [];
  for (const part of spec.split(',')) {
    const [name = '', value = ''] = part.split('=').map((s) => s.trim());
    if (!(name in DIALECT_VALUES)) {
      problems.push(`unknown setting "${name}" (one of ${Object.keys(DIALECT_VALUES).join(', ')})`);
      continue;
    }
    const key = name as keyof Dialect;
    const allowed: readonly string[] = DIALECT_VALUES[key];
    if (!allowed.includes(value)) {
      problems.push(`${name}=${value} is not one of ${allowed.join(', ')}`);
      continue;
    }
    (dialect as Record<keyof Dialect, string>)[key] = value;
  }
  if (problems.length > 0) throw new Error(`REFERENCE_DIALECT: ${problems.join('; ')}`);
  return dialect;
}

/** Every combination would be 1,296; these cover each value of each setting at least once. */
export function representativeDialects(): Dialect[] {
  const keys = Object.keys(DIALECT_VALUES) as (keyof Dialect)[];
  const widest = Math.max(...keys.map((k) => DIALECT_VALUES[k].length));
  const out: Dialect[] = [];
  for (let i = 0; i < widest; i++) {
    const d = {} as Record<keyof Dialect, string>;
    for (const k of keys) {
      const values = DIALECT_VALUES[k];
      d[k] = values[(i + keys.indexOf(k)) % values.length] as string;
    }
    out.push(d as unknown as Dialect);
  }
  return out;
}

/** The default with exactly one setting changed, for every value of every setting (14 dialects). */
export function singleChangeDialects(): Dialect[] {
  return (Object.keys(DIALECT_VALUES) as (keyof Dialect)[]).flatMap((key) =>
    DIALECT_VALUES[key]
      .filter((value) => value !== DEFAULT_DIALECT[key])
      .map((value) => ({ ...DEFAULT_DIALECT, [key]: value }) as Dialect),
  );
}

export function describeDialect(d: Dialect): string {
  return (Object.keys(DIALECT_VALUES) as (keyof Dialect)[]).map((k) => `${k}=${d[k]}`).join(',');
}

/**
 * Where a client puts the key for this dialect, written as the BFF's PROPERTY_API_AUTH setting (`bearer`,
 * `header:<Name>`, `query:<name>`): what `npm start`, `npm run cluster` and the tests configure for the
 * embedded service.
 */
export function authSettingFor(d: Dialect): 'bearer' | 'header:X-API-Key' | 'query:api_key' {
  if (d.auth === 'header') return 'header:X-API-Key';
  if (d.auth === 'query') return 'query:api_key';
  return 'bearer';
}
