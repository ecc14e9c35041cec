import { LRUCache } from 'lru-cache';
import { AddressInput, addressProblem, restoreZip } from '../contract/index.ts';
import type { AppContext } from './context.ts';
import { ApiError } from './errors.ts';

/** Query values as URLSearchParams decodes them: invalid UTF-8 becomes U+FFFD, which we refuse. */
export function params(c: AppContext, name: string): string[] {
  const url = c.req.url;
  // The query ends at a fragment, which a raw request target may carry (`?address=1 Main St#x`).
  const q = url.indexOf('?');
  const hash = url.indexOf('#');
  if (q < 0 || (hash >= 0 && hash < q)) return [];
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash)).getAll(name);
}

/**
 * Addresses already found good, by the text sent: agents ask the same addresses again and again, and checking
 * one (the contract's schema, its problems, the ZIP put right) cost a cached hit about as much as its session.
 * Only what passed is kept, so every refusal is worked out, and worded, afresh.
 */
const checked = new LRUCache<string, string, string>({
  max: 10_000,
  memoMethod: (value, _stale, { context: blank }) => checkAddress(value, blank),
});

/** One address-like query parameter, validated as the contract says; `blank` is the message for none. */
export function addressParam(c: AppContext, name: string, blank: string): string {
  const values = params(c, name);
  if (values.length > 1) throw new ApiError(400, 'bad_request', `Send the ${name} parameter once.`);
  return checked.memo(values[0] ?? '', { context: blank });
}

/** The contract's address rules, as the API's error. */
export function checkAddress(value: string, blank = 'Enter an address.'): string {
  if (value.includes('\uFFFD')) throw new ApiError(400, 'bad_request', 'The text is not valid UTF-8.');
  const parsed = AddressInput.safeParse(value);
  if (!parsed.success) {
    const message =
      value.trim() === '' ? blank : (parsed.error.issues[0]?.message ?? 'That is not an address.');
    throw new ApiError(400, 'bad_request', message);
  }
  const problem = addressProblem(parsed.data);
  if (problem) throw new ApiError(400, 'bad_request', problem);
  return restoreZip(parsed.data.trim());
}
