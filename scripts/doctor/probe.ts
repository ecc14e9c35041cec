import { connect } from 'node:tls';
import { toAccount } from '../../src/bff/upstream/parse.ts';
import { CreateSessionRequest } from '../../src/contract/index.ts';
import { envelopeOf, median } from './formats.ts';
import { type Answer, headerSafe, type Placement, placementText } from './http.ts';
import { checkResolve, searchPages } from './records.ts';
import type { DoctorReport, Level } from './report.ts';
import { call, type DoctorOptions, RateLimitedStop, type Run, say } from './run.ts';

export type { DoctorOptions };

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

const INVALID_KEY = 'proplens-doctor-made-up-key-0000000000';

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
  try {
    if (await findPlacement(run)) {
      await checkAnyKey(run);
      const record = (await searchPages(run)) ?? run.o.address;
      await checkResolve(run, record);
    }
  } catch (err) {
    // Rate limited for longer than a check should wait: the finding says when to try again.
    if (!(err instanceof RateLimitedStop)) throw err;
  }
  checkKeyText(run);
  return conclude(run);
}

/** PropLens's sign-in takes what its contract takes; a key it refuses cannot be used, however well the service takes it. */
function checkKeyText(run: Run) {
  if (CreateSessionRequest.safeParse({ apiKey: run.o.key }).success) return;
  say(
    run,
    'Key',
    'warn',
    "PropLens's sign-in takes keys of printable ASCII characters with no spaces, and this key has others: people could not sign in with it as it is.",
  );
}

async function findPlacement(run: Run): Promise<boolean> {
  const tried: string[] = [];
  let sent = 0;
  for (const placement of run.o.auth ? [run.o.auth] : PLACEMENTS) {
    if (placement.kind !== 'query' && !headerSafe(run.o.key)) {
      tried.push(`${placementText(placement)} → not sendable in a header`);
      continue;
    }
    const answer = await call(run, '/auth/me', {}, run.o.key, placement);
    sent++;
    tried.push(`${placementText(placement)} → ${answer.failed ?? answer.status}`);
    if (answer.failed && sent === 1) {
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
