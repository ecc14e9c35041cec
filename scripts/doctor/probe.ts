import { connect } from 'node:tls';
import { ID_FIELDS, toAccount, toProperty } from '../../src/bff/upstream/parse.ts';
import { dateFormatOf, envelopeOf, median, resetFormatOf } from './formats.ts';
import { type Answer, type HttpDeps, type Placement, placementText, send } from './http.ts';
import type { DoctorReport, Finding, Level } from './report.ts';

export interface DoctorOptions {
  url: string;
  key: string;
  /** Try only this placement (PROPERTY_API_AUTH syntax); else the usual ones in turn. */
  auth?: Placement;
  resolvePath?: string;
  searchPath?: string;
  /** An address the service knows, when a search cannot find one. */
  address?: string;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  requestTimeoutMs?: number;
  /** The whole run ends within this (ms). */
  budgetMs?: number;
}

/** Where services put a key, most common first. The first that /auth/me accepts wins. */
export const PLACEMENTS: Placement[] = [
  { kind: 'bearer' },
  { kind: 'header', name: 'X-API-Key' },
  { kind: 'header', name: 'Api-Key' },
  { kind: 'header', name: 'X-Api-Token' },
  { kind: 'query', name: 'api_key' },
  { kind: 'query', name: 'apikey' },
  { kind: 'query', name: 'key' },
];

const SEARCH_QUERIES = ['Main St', 'Main', '1'];
const INVALID_KEY = 'proplens-doctor-made-up-key-0000000000';

interface Run {
  o: Required<Pick<DoctorOptions, 'url' | 'key' | 'resolvePath' | 'searchPath'>> & DoctorOptions;
  http: HttpDeps;
  findings: Finding[];
  settings: Record<string, string>;
  placement?: Placement;
  sleep: (ms: number) => Promise<void>;
}

const say = (run: Run, topic: string, level: Level, text: string) =>
  run.findings.push({ topic, level, text });

/** Probes a Property Intelligence Service with as few requests as it can and says whether PropLens can use it. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? Date.now;
  const run: Run = {
    o: { resolvePath: '/properties/resolve', searchPath: '/properties/search', ...options },
    http: {
      fetch: options.fetch ?? fetch,
      now,
      deadline: now() + (options.budgetMs ?? 25_000),
      requestTimeoutMs: options.requestTimeoutMs ?? 6_000,
      count: { requests: 0, ms: [] },
    },
    findings: [],
    settings: { PROPERTY_API_URL: options.url.replace(/\/+$/, '') },
    sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
  };
  if (run.o.url.startsWith('https:')) await checkTls(run);
  if (await findPlacement(run)) {
    await checkAnyKey(run);
    const record = (await searchPages(run)) ?? run.o.address;
    await checkResolve(run, record);
  }
  return conclude(run);
}

/** Sends a request, waiting out a short rate-limit reset once; notes the rate-limit headers it sees. */
async function call(
  run: Run,
  path: string,
  query: Record<string, string>,
  key = run.o.key,
  placement = run.placement,
) {
  const p = placement ?? { kind: 'bearer' as const };
  let answer = await send(run.http, run.o.url, path, query, key, p);
  if (answer.status === 429) {
    const wait = waitFor(answer, run.http.now());
    if (wait !== null && wait <= 10_000 && run.http.now() + wait < run.http.deadline) {
      say(
        run,
        'Rate limit',
        'warn',
        `The service said 429 (rate limited); waited ${Math.ceil(wait / 1000)} s as its X-RateLimit-Reset asked.`,
      );
      await run.sleep(wait);
      answer = await send(run.http, run.o.url, path, query, key, p);
    }
  }
  if (!run.settings['#ratelimit'] && answer.status > 0) noteRateLimit(run, answer);
  return answer;
}

function waitFor(answer: Answer, now: number): number | null {
  const reset = answer.headers.get('x-ratelimit-reset');
  const serviceNow = Date.parse(answer.headers.get('date') ?? '') || now;
  const read = reset ? resetFormatOf(reset, serviceNow) : null;
  return read ? Math.max(0, read.at - serviceNow) : null;
}

async function findPlacement(run: Run): Promise<boolean> {
  const tried: string[] = [];
  for (const placement of run.o.auth ? [run.o.auth] : PLACEMENTS) {
    const answer = await call(run, '/auth/me', {}, run.o.key, placement);
    tried.push(`${placementText(placement)} → ${answer.failed ?? answer.status}`);
    if (answer.failed && tried.length === 1) {
      say(run, 'Connection', 'block', `${run.o.url} did not answer /auth/me: ${answer.failed}.`);
      return false;
    }
    if (answer.status >= 200 && answer.status < 300) {
      run.placement = placement;
      run.settings.PROPERTY_API_AUTH = placementText(placement);
      say(
        run,
        'Key placement',
        'ok',
        `The key works as ${describePlacement(placement)} (${tried.length} ${tried.length === 1 ? 'try' : 'tries'}).`,
      );
      checkAccount(run, answer);
      return true;
    }
    if (answer.status === 403 && /plan|upgrade|professional|enterprise|sales/i.test(answer.text)) {
      const contact = /[\w.+-]+@[\w-]+(\.[\w-]+)+/.exec(answer.text)?.[0];
      say(
        run,
        'Plan',
        'block',
        `The key is known but the account's plan has no API access: the service needs a professional or enterprise plan.${contact ? ` Ask ${contact} to upgrade.` : ''}`,
      );
      return false;
    }
  }
  say(
    run,
    'Key placement',
    'block',
    `No placement of the key was accepted by /auth/me (${tried.join('; ')}). Check the key, or give the service's own header name with --auth header:<Name>.`,
  );
  return false;
}

const describePlacement = (p: Placement) =>
  p.kind === 'bearer'
    ? 'Authorization: Bearer <key>'
    : p.kind === 'header'
      ? `the ${p.name} header`
      : `the ${p.name} query parameter`;

function checkAccount(run: Run, answer: Answer) {
  const shape = envelopeOf(answer.json, ['data', 'account', 'user', 'result']);
  if (!shape) {
    say(
      run,
      '/auth/me',
      'warn',
      `It answered 2xx but not with a JSON object (${answer.headers.get('content-type') ?? 'no content type'}): PropLens signs in, and names the account "Your account".`,
    );
    return;
  }
  const account = toAccount(answer.json);
  const plan = account.plan;
  const level: Level = plan && !['professional', 'enterprise'].includes(plan) ? 'block' : 'ok';
  say(
    run,
    '/auth/me',
    level,
    `Envelope ${shape.envelope}; account "${account.name}", plan ${plan ?? 'not stated'}${account.id ? ', with an account id (colleagues share reviews)' : ', with no account id (each key is its own account for reviews)'}.${level === 'block' ? ' That plan has no API access.' : ''}`,
  );
}

async function checkAnyKey(run: Run) {
  const answer = await call(run, '/auth/me', {}, INVALID_KEY);
  if (answer.status >= 200 && answer.status < 300)
    say(
      run,
      'Key check',
      'block',
      'The service also accepted a made-up key at /auth/me. PropLens signs people in by that check, so anyone could sign in with any text: point it at the real service (this looks like a mock or a gateway that does not check keys).',
    );
  else say(run, 'Key check', 'ok', `A made-up key is refused (${answer.failed ?? answer.status}).`);
}

function noteRateLimit(run: Run, answer: Answer) {
  run.settings['#ratelimit'] = 'seen';
  const limit = answer.headers.get('x-ratelimit-limit');
  const reset = answer.headers.get('x-ratelimit-reset');
  if (!limit && !reset) {
    say(
      run,
      'Rate limit',
      'warn',
      'No X-RateLimit headers: PropLens cannot pace reviews to a limit it is not told, so users may meet 429s, each waited out before the next request.',
    );
    return;
  }
  const serviceDate = Date.parse(answer.headers.get('date') ?? '');
  const read = reset ? resetFormatOf(reset, Number.isNaN(serviceDate) ? run.http.now() : serviceDate) : null;
  const skew = Number.isNaN(serviceDate) ? null : Math.round((run.http.now() - serviceDate) / 1000);
  say(
    run,
    'Rate limit',
    read ? 'ok' : 'warn',
    `X-RateLimit-Limit ${limit ?? '(none)'}, remaining ${answer.headers.get('x-ratelimit-remaining') ?? '(none)'}, reset as ${read?.format ?? `something unreadable ("${(reset ?? '').slice(0, 40)}"): after a 429 PropLens waits a minute`}${skew !== null && Math.abs(skew) >= 2 ? `; this machine's clock is ${Math.abs(skew)} s ${skew >= 0 ? 'ahead of' : 'behind'} the service's` : ''}.`,
  );
}

/** Two pages of a search: its page size, cursors, no duplicates. Returns an address to resolve. */
async function searchPages(run: Run): Promise<string | undefined> {
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
    if (next) {
      const second = await call(run, run.o.searchPath, { q, cursor: next });
      const more = listOf(second.json) ?? [];
      const ids = new Set(items.map(idOf));
      const dupes = more.filter((r) => ids.has(idOf(r))).length;
      text += `; next_cursor pages on (${more.length} more${dupes ? `, ${dupes} repeated` : ', none repeated'})`;
      say(run, 'Search', dupes ? 'warn' : 'ok', `${text}.`);
    } else say(run, 'Search', 'ok', `${text}; one page only for this query.`);
    const address = items
      .map((r) => (r as Record<string, unknown>).address)
      .find((a) => typeof a === 'string');
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

const listOf = (body: unknown): unknown[] | null => {
  if (Array.isArray(body)) return body;
  if (!body || typeof body !== 'object') return null;
  for (const name of ['data', 'items', 'results', 'properties']) {
    const v = Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
    if (Array.isArray(v)) return v;
  }
  return null;
};
const cursorOf = (body: unknown) => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const v = (body as Record<string, unknown>).next_cursor ?? (body as Record<string, unknown>).nextCursor;
  return typeof v === 'string' && v ? v : null;
};
const idOf = (r: unknown) => {
  const o = (r ?? {}) as Record<string, unknown>;
  return String(ID_FIELDS.map((f) => o[f]).find((v) => v !== undefined) ?? JSON.stringify(o));
};

async function checkResolve(run: Run, address: string | undefined) {
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
  const confidence = raw.confidence;
  const date = dateFormatOf(raw.last_verified);
  const known = new Set<string>([...ID_FIELDS, 'source', 'confidence', 'last_verified', 'address']);
  const extra = Object.keys(raw).filter((k) => !known.has(k));
  try {
    toProperty(raw, idField, address);
    const warnings = [
      typeof confidence === 'string' && !['high', 'medium', 'low'].includes(confidence.toLowerCase())
        ? `confidence "${confidence}" is outside high/medium/low`
        : null,
      date ? null : 'last_verified is in no date format PropLens reads',
    ].filter(Boolean);
    say(
      run,
      'Record',
      warnings.length ? 'warn' : 'ok',
      `Envelope ${envelope}; identifier field ${idField}; source, confidence (${String(confidence)}) and last_verified (${date ?? 'unreadable'}) present; ${extra.length} other fields${extra.length ? ` (${extra.slice(0, 8).join(', ')}${extra.length > 8 ? ', …' : ''})` : ''}.${warnings.length ? ` But ${warnings.join('; ')}.` : ''}`,
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

async function checkTls(run: Run) {
  const url = new URL(run.o.url);
  const result = await new Promise<string>((resolve) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port || 443), servername: url.hostname, timeout: 5_000 },
      () => {
        const cert = socket.getPeerCertificate();
        resolve(`${socket.getProtocol() ?? 'TLS'}; certificate valid until ${cert.valid_to ?? 'unknown'}`);
        socket.end();
      },
    );
    socket.on('error', (err) => resolve(`error: ${err.message}`));
    socket.on('timeout', () => {
      socket.destroy();
      resolve('error: no TLS handshake within 5 s');
    });
  });
  say(
    run,
    'TLS',
    result.startsWith('error') ? 'block' : 'ok',
    result.startsWith('error') ? `The TLS connection failed (${result.slice(7)}).` : result,
  );
}

function conclude(run: Run): DoctorReport {
  delete run.settings['#ratelimit'];
  const blockers = run.findings.filter((f) => f.level === 'block');
  const latency = median(run.http.count.ms);
  const usable =
    blockers.length === 0 && run.placement !== undefined && Boolean(run.settings.PROPERTY_RESOLVE_PATH);
  return {
    usable,
    verdict: usable
      ? 'PropLens can use this service.'
      : `PropLens cannot use this service yet: ${blockers.map((b) => b.topic).join(', ') || 'nothing could be checked'}.`,
    findings: run.findings,
    settings: run.settings,
    requests: run.http.count.requests,
    medianLatencyMs: latency,
  };
}
