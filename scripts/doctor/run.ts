import { UNKNOWN_RESET_WAIT_MS } from '../../src/bff/upstream/budget.ts';
import { resetFormatOf } from './formats.ts';
import { type Answer, type HttpDeps, type Placement, send } from './http.ts';
import type { Finding, Level } from './report.ts';

/** What the doctor is told: the service, the key, and what tests replace (fetch, the clock, sleeping). */
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

/** One run of the doctor: its options, requests and findings so far. */
export interface Run {
  o: Required<Pick<DoctorOptions, 'url' | 'key' | 'resolvePath' | 'searchPath'>> & DoctorOptions;
  http: HttpDeps;
  findings: Finding[];
  settings: Record<string, string>;
  placement?: Placement;
  sleep: (ms: number) => Promise<void>;
  /** The rate-limit headers have been read (from an accepted answer). */
  rateLimitNoted?: boolean;
}

/** Thrown when the service rate-limits the doctor for longer than it waits: nothing more can be learnt now. */
export class RateLimitedStop extends Error {}

/** The longest the doctor waits for a 429's reset: a check should not sit silent for minutes. */
export const MAX_429_WAIT_MS = 10_000;

export const say = (run: Run, topic: string, level: Level, text: string) =>
  run.findings.push({ topic, level, text });

const accepted = (answer: Answer) => answer.status >= 200 && answer.status < 300;

/**
 * Sends a request, waiting out a short rate-limit reset once; notes the rate-limit headers of the first
 * accepted answer. A 429 it cannot wait out ends the run (RateLimitedStop) with a finding that says when to
 * try again: every further request would only be refused too.
 */
export async function call(
  run: Run,
  path: string,
  query: Record<string, string>,
  key = run.o.key,
  placement = run.placement,
): Promise<Answer> {
  const p = placement ?? { kind: 'bearer' as const };
  let answer = await send(run.http, run.o.url, path, query, key, p);
  if (answer.status === 429) {
    const wait = waitFor(answer, run.http.now());
    if (wait === null || wait > MAX_429_WAIT_MS || run.http.now() + wait >= run.http.deadline) {
      say(
        run,
        'Rate limit',
        'block',
        wait === null
          ? 'The service answered 429 (rate limited) with no X-RateLimit-Reset the doctor could read: run it again later.'
          : `The service answered 429 (rate limited) and asks for ${Math.ceil(wait / 1000)} s before the next request, longer than the doctor waits (${MAX_429_WAIT_MS / 1000} s): run it again after that.`,
      );
      throw new RateLimitedStop();
    }
    say(
      run,
      'Rate limit',
      'warn',
      `The service said 429 (rate limited); waited ${Math.ceil(wait / 1000)} s as its X-RateLimit-Reset asked.`,
    );
    await run.sleep(wait);
    answer = await send(run.http, run.o.url, path, query, key, p);
    if (answer.status === 429) {
      say(
        run,
        'Rate limit',
        'block',
        'The service answered 429 again after that wait: run the doctor again later.',
      );
      throw new RateLimitedStop();
    }
  }
  // A refusal often carries no rate-limit headers where accepted answers do (gateways): read an accepted one.
  if (!run.rateLimitNoted && accepted(answer)) noteRateLimit(run, answer);
  return answer;
}

/** How long a 429 asks to wait, on the service's own clock (its Date header), or null when it does not say. */
function waitFor(answer: Answer, now: number): number | null {
  const reset = answer.headers.get('x-ratelimit-reset');
  const serviceNow = Date.parse(answer.headers.get('date') ?? '') || now;
  const read = reset ? resetFormatOf(reset, serviceNow) : null;
  return read ? Math.max(0, read.at - serviceNow) : null;
}

function noteRateLimit(run: Run, answer: Answer) {
  run.rateLimitNoted = true;
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
  // Positive: this machine's clock reads later than the service's.
  const skew = Number.isNaN(serviceDate) ? null : Math.round((run.http.now() - serviceDate) / 1000);
  const unreadable = `something unreadable ("${(reset ?? '').slice(0, 40)}"): after a 429 PropLens cannot tell when to ask again, and waits ${UNKNOWN_RESET_WAIT_MS / 1000} s`;
  say(
    run,
    'Rate limit',
    read ? 'ok' : 'warn',
    `X-RateLimit-Limit ${limit ?? '(none)'}, remaining ${answer.headers.get('x-ratelimit-remaining') ?? '(none)'}, reset as ${read?.format ?? unreadable}${skew !== null && Math.abs(skew) >= 2 ? `; this machine's clock is ${Math.abs(skew)} s ${skew >= 0 ? 'ahead of' : 'behind'} the service's` : ''}.`,
  );
}
