/** One request of the doctor: bounded in time and bytes, and never showing the key. */

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

/** Text from the service with the key (as sent, or URL-encoded) cut out, before anyone sees it. */
export function redact(text: string, key: string): string {
  let out = text;
  for (const form of new Set([key, encodeURIComponent(key)])) if (form) out = out.split(form).join('[key]');
  return out;
}

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
  const left = deps.deadline - deps.now();
  const started = deps.now();
  deps.count.requests++;
  if (left <= 0)
    return { status: 0, headers: new Headers(), text: '', json: undefined, ms: 0, failed: 'out of time' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(deps.requestTimeoutMs, left));
  try {
    const res = await deps.fetch(url, { headers, signal: controller.signal, redirect: 'manual' });
    const text = redact(await readCapped(res), key);
    const ms = deps.now() - started;
    deps.count.ms.push(ms);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json, ms };
  } catch (err) {
    const ms = deps.now() - started;
    const reason = controller.signal.aborted
      ? `no answer within ${Math.round(Math.min(deps.requestTimeoutMs, left) / 1000)} s`
      : redact(
          (err as Error).cause instanceof Error
            ? ((err as Error).cause as Error).message
            : (err as Error).message,
          key,
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
