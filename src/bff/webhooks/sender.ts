import type { LookupAddress, LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { checkTarget, RefusedTarget, type Resolve } from './ssrf.ts';

/** What one attempt to send a message came to: delivered (2xx), or the status or error that it was not. */
export interface AttemptResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The answer's first bytes as text (RESPONSE_SNIPPET at most), or null when there was none. */
  response: string | null;
}

export interface SendOptions {
  allowPrivate: boolean;
  resolve?: Resolve;
  /** Whole attempt, connection to last byte read (10 s): a receiver that trickles is cut off too. */
  timeoutMs: number;
}

/** How much of an answer is read (then the connection is dropped) and how much of it the log keeps. */
export const RESPONSE_READ_MAX = 64 * 1024;
export const RESPONSE_SNIPPET = 1024;

/**
 * One attempt: the URL checked now (ssrf.ts: resolved, public), connected to the very address checked, the body
 * signed for this attempt (Standard Webhooks: the id stays, the timestamp is the attempt's, system time, since the
 * receiver compares it with its own clock), POSTed with no redirect followed and the answer read up to a cap.
 * Never throws: every failure is a result the delivery log shows.
 */
export async function sendAttempt(
  message: { id: string; url: string; secret: string; payload: string },
  options: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let agent: Agent | undefined;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    const target = await checkTarget(message.url, { ...options, signal: deadline.signal });
    agent = pinnedAgent(target.address, target.family, options.timeoutMs);
    // One reading of the clock, in whole seconds, for the signature and the header alike: two readings could
    // straddle a second, and a header a second after the signed time fails every receiver's check.
    const sentAt = Math.floor(Date.now() / 1000);
    const signature = new Webhook(message.secret).sign(message.id, new Date(sentAt * 1000), message.payload);
    const res = await request(target.url, {
      method: 'POST',
      dispatcher: agent,
      signal: deadline.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'PropLens-Webhooks/1',
        'webhook-id': message.id,
        'webhook-timestamp': String(sentAt),
        'webhook-signature': signature,
      },
      body: message.payload,
    });
    const response = await readCapped(res.body);
    const status = res.statusCode;
    const delivered = status >= 200 && status < 300;
    const error = delivered
      ? null
      : status >= 300 && status < 400
        ? `Redirect (${status}) not followed: give the final URL.`
        : `The receiver answered ${status}.`;
    return { delivered, statusCode: status, error, durationMs: elapsed(), response };
  } catch (err) {
    return {
      delivered: false,
      statusCode: null,
      error: failure(err, deadline.signal.aborted, options),
      durationMs: elapsed(),
      response: null,
    };
  } finally {
    clearTimeout(timer);
    agent?.destroy().catch(() => {});
  }
}

/** An agent whose every connection goes to `address`: the name is not looked up again (DNS rebinding). */
function pinnedAgent(address: string, family: 4 | 6, timeoutMs: number): Agent {
  const lookup = (
    _hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return new Agent({ connect: { lookup, timeout: timeoutMs }, connections: 1, pipelining: 1 });
}

/** The answer's first RESPONSE_READ_MAX bytes at most (a 10 MB answer is not read), as text for the log. */
async function readCapped(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    // Leaving the loop destroys the stream: the rest is never read, the connection is dropped.
    if (size >= RESPONSE_READ_MAX) break;
  }
  if (size === 0) return null;
  // Untrusted bytes, kept as text: invalid UTF-8 becomes U+FFFD, and NUL too (PostgreSQL's text cannot hold it).
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET));
  return text.replaceAll('\u0000', '\uFFFD');
}

/** Why an attempt got no answer, in words for the delivery log (never a stack, never the receiver's text). */
function failure(err: unknown, timedOut: boolean, options: SendOptions): string {
  const code = (err as { code?: string })?.code ?? '';
  // First: a deadline that ran out during DNS ends the attempt as one that ran out anywhere else.
  if (timedOut || /TIMEOUT/.test(code))
    return `No answer within ${options.timeoutMs / 1000} s: the attempt was cut off.`;
  if (err instanceof RefusedTarget) return `Refused: ${err.message}`;
  if (code === 'ECONNREFUSED') return 'The receiver refused the connection.';
  if (code === 'ENOTFOUND') return 'The receiver’s host could not be found.';
  if (/CERT|SSL|TLS/i.test(code)) return `The receiver’s TLS certificate was not accepted (${code}).`;
  return `The connection failed${code ? ` (${code})` : ''}.`;
}
