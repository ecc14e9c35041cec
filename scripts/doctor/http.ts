import { keyRedaction } from '../../src/bff/upstream/redact.ts';

/**
 * One request of the doctor: bounded in time and bytes, and never showing the key. What the service answered
 * is redacted as the BFF redacts it (redact.ts): the JSON as parsed, so no escape (`\/`, `\u00fc`) hides the
 * key, the text and the headers with escaped and URL-encoded forms too.
 */

export type Placement =
  | { kind: 'bearer' }
  | { kind: 'header'; name: string }
  | { kind: 'query'; name: string };

export const placementText = (p: Placement) => (p.kind === 'bearer' ? 'bearer' : `${p.kind}:${p.name}`);

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  ms: number;
  /** The answer did not come in time, or the connection failed. */
  failed?: string;
}

export interface HttpDeps {
  fetch: typeof fetch;
  now: () => number;
  /** Epoch ms by which every request must be done. */
  deadline: number;
  requestTimeoutMs: number;
  /** Counts every request made. */
  count: { requests: number; ms: number[] };
}

const MAX_BYTES = 1_000_000;

/**
 * Whether the key can travel in a header: fetch sends header values as bytes, so a character past U+00FF (or a
 * control character) cannot; such a key only goes in the query.
 */
export const headerSafe = (key: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(key);

export async function send(
  deps: HttpDeps,
  base: string,
  path: string,
  query: Record<string, string>,
  key: string,
  placement: Placement,
): Promise<Answer> {
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (placement.kind === 'bearer') headers.Authorization = `Bearer ${key}`;
  else if (placement.kind === 'header') headers[placement.name] = key;
  else url.searchParams.set(placement.name, key);
  const redaction = keyRedaction(key);
  const left = deps.deadline - deps.now();
  const started = deps.now();
  deps.count.requests++;
  if (left <= 0)
    return { status: 0, headers: new Headers(), text: '', json: undefined, ms: 0, failed: 'out of time' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(deps.requestTimeoutMs, left));
  try {
    const res = await deps.fetch(url, { headers, signal: controller.signal, redirect: 'manual' });
    const raw = await readCapped(res);
    const ms = deps.now() - started;
    deps.count.ms.push(ms);
    let json: unknown;
    try {
      json = redaction.parsed(JSON.parse(raw));
    } catch {
      json = undefined;
    }
    const seen = new Headers();
    res.headers.forEach((value, name) => {
      seen.append(name, redaction.text(value));
    });
    return { status: res.status, headers: seen, text: redaction.text(raw), json, ms };
  } catch (err) {
    const ms = deps.now() - started;
    const reason = controller.signal.aborted
      ? `no answer within ${Math.round(Math.min(deps.requestTimeoutMs, left) / 1000)} s`
      : redaction.text(
          (err as Error).cause instanceof Error
            ? ((err as Error).cause as Error).message
            : (err as Error).message,
        );
    return { status: 0, headers: new Headers(), text: '', json: undefined, ms, failed: reason };
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
