import { cleanText, ID_FIELDS, toProperty } from '../../src/bff/upstream/parse.ts';
import { Confidence } from '../../src/contract/index.ts';
import { dateFormatOf, envelopeOf } from './formats.ts';
import { call, type Run, say } from './run.ts';

/** The search and record checks: what the service's records look like, read as the BFF reads them. */

const SEARCH_QUERIES = ['Main St', 'Main', '1'];

/** Two pages of a search: its page size, cursors, no duplicates, confidence words. Returns an address to resolve. */
export async function searchPages(run: Run): Promise<string | undefined> {
  for (const q of SEARCH_QUERIES) {
    const first = await call(run, run.o.searchPath, { q });
    if (first.status === 404 || first.status === 405 || first.failed) {
      say(
        run,
        'Search',
        'warn',
        `${run.o.searchPath} answered ${first.failed ?? first.status}: agents' address suggestions and area reviews need a search list endpoint; give its path with --search-path.`,
      );
      return undefined;
    }
    const items = listOf(first.json);
    if (!items || items.length === 0) continue;
    run.settings.PROPERTY_SEARCH_PATH = run.o.searchPath;
    const next = cursorOf(first.json);
    let text = `${run.o.searchPath}?q=${q}: ${items.length} records a page`;
    let seen = items;
    if (next) {
      const second = await call(run, run.o.searchPath, { q, cursor: next });
      const more = listOf(second.json) ?? [];
      const ids = new Set(items.map(idOf));
      const dupes = more.filter((r) => ids.has(idOf(r))).length;
      text += `; next_cursor pages on (${more.length} more${dupes ? `, ${dupes} repeated` : ', none repeated'})`;
      say(run, 'Search', dupes ? 'warn' : 'ok', `${text}.`);
      seen = [...items, ...more];
    } else say(run, 'Search', 'ok', `${text}; one page only for this query.`);
    checkConfidenceWords(run, seen);
    const address = items.map((r) => field(r, 'address')).find((a) => typeof a === 'string');
    return typeof address === 'string' ? address : undefined;
  }
  say(
    run,
    'Search',
    'warn',
    `${run.o.searchPath} found nothing for "${SEARCH_QUERIES.join('", "')}": give an address it knows with --address to check a record.`,
  );
  return undefined;
}

/** The confidence as PropLens reads it (trimmed, any case), or null when it is not one of its three words. */
const confidenceOf = (value: unknown) =>
  Confidence.safeParse(cleanText(value, 20)?.toLowerCase()).data ?? null;

/**
 * Words for confidence outside high/medium/low, across the records seen: PropLens answers such a record as
 * unreadable (502) rather than guess how far to trust it, so a service using other words loses those records.
 */
function checkConfidenceWords(run: Run, records: unknown[]) {
  const unknown = new Map<string, number>();
  for (const r of records) {
    const value = field(r, 'confidence');
    if (value === undefined || confidenceOf(value) !== null) continue;
    const word = String(value).trim().slice(0, 30);
    unknown.set(word, (unknown.get(word) ?? 0) + 1);
  }
  if (unknown.size === 0) return;
  const words = [...unknown]
    .slice(0, 5)
    .map(([word, n]) => `"${word}" (${n} of ${records.length} records)`)
    .join(', ');
  say(
    run,
    'Confidence',
    'warn',
    `Confidence words PropLens does not know: ${words}. It reads high, medium and low only (any case), and answers a record with another word as unreadable (502) rather than guess how far to trust it.`,
  );
}

const field = (r: unknown, name: string): unknown =>
  r && typeof r === 'object' && Object.hasOwn(r, name) ? (r as Record<string, unknown>)[name] : undefined;

const listOf = (body: unknown): unknown[] | null => {
  if (Array.isArray(body)) return body;
  for (const name of ['data', 'items', 'results', 'properties']) {
    const v = field(body, name);
    if (Array.isArray(v)) return v;
  }
  return null;
};
const cursorOf = (body: unknown) => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const v = field(body, 'next_cursor') ?? field(body, 'nextCursor');
  return typeof v === 'string' && v ? v : null;
};
const idOf = (r: unknown) => {
  const o = (r ?? {}) as Record<string, unknown>;
  return String(ID_FIELDS.map((f) => field(o, f)).find((v) => v !== undefined) ?? JSON.stringify(o));
};

export async function checkResolve(run: Run, address: string | undefined) {
  if (!address) {
    say(
      run,
      'Record',
      'block',
      'No record could be fetched to check its fields. Run again with --address "<an address the service knows>".',
    );
    return;
  }
  const answer = await call(run, run.o.resolvePath, { address });
  if (answer.status < 200 || answer.status >= 300) {
    say(
      run,
      'Record',
      'block',
      `${run.o.resolvePath} answered ${answer.failed ?? answer.status} for "${address}"${answer.status === 404 ? ' (give the resolve path with --resolve-path, or an address it knows with --address)' : ''}.`,
    );
    return;
  }
  run.settings.PROPERTY_RESOLVE_PATH = run.o.resolvePath;
  const shape = envelopeOf(answer.json, ['data', 'property', 'result', 'record']);
  if (!shape) {
    say(
      run,
      'Record',
      'block',
      `${run.o.resolvePath} answered ${answer.status} but not with JSON (${answer.headers.get('content-type') ?? 'no content type'}): "${answer.text.slice(0, 60)}".`,
    );
    return;
  }
  checkRecordFields(run, shape.inner, shape.envelope, address);
}

function checkRecordFields(run: Run, raw: Record<string, unknown>, envelope: string, address: string) {
  const idField = ID_FIELDS.find((f) => Object.hasOwn(raw, f));
  if (idField) run.settings.PROPERTY_ID_FIELD = idField;
  const missing = [
    idField ? null : 'property identifier',
    ...['source', 'confidence', 'last_verified'].filter((f) => !Object.hasOwn(raw, f)),
  ].filter(Boolean);
  const confidence = field(raw, 'confidence');
  const date = dateFormatOf(field(raw, 'last_verified'));
  const known = new Set<string>([...ID_FIELDS, 'source', 'confidence', 'last_verified', 'address']);
  const extra = Object.keys(raw).filter((k) => !known.has(k));
  if (confidence !== undefined && confidenceOf(confidence) === null) {
    say(
      run,
      'Record',
      'block',
      `The record's confidence "${String(confidence).trim().slice(0, 30)}" is none of high, medium, low: PropLens answers such a record as unreadable (502) rather than guess how far to trust it.`,
    );
    return;
  }
  try {
    toProperty(raw, idField, address);
    const warning = date ? '' : ' But last_verified is in no date format PropLens reads.';
    say(
      run,
      'Record',
      warning ? 'warn' : 'ok',
      `Envelope ${envelope}; identifier field ${idField}; source, confidence (${String(confidence)}) and last_verified (${date ?? 'unreadable'}) present; ${extra.length} other fields${extra.length ? ` (${extra.slice(0, 8).join(', ')}${extra.length > 8 ? ', …' : ''})` : ''}.${warning}`,
    );
  } catch (err) {
    say(
      run,
      'Record',
      'block',
      `PropLens cannot read the record: ${missing.length ? `missing ${missing.join(', ')}` : (err as Error).message}.`,
    );
  }
}
