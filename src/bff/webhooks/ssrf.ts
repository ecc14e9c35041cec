import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/*
 * Where a webhook may go (SSRF): a receiver PropLens posts to must not be a door into the network PropLens runs in
 * (its metadata service, its database, a neighbour's admin page). The URL is http(s) without credentials, and every
 * address its host resolves to, on every attempt, is a public unicast one; the attempt then connects to the address
 * checked (sender.ts pins it), so a name that resolves elsewhere a moment later (DNS rebinding) reaches nothing new.
 */

/** What DNS gives for a name: every address, as `dns.lookup(name, { all: true })` does. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A URL a webhook may be sent to, and the address its attempt connects to. */
export interface CheckedTarget {
  url: URL;
  /** The address checked, which the connection uses (never a second lookup). */
  address: string;
  family: 4 | 6;
}

/** The reason a URL is refused, in words for the person who gave it. */
export class RefusedTarget extends Error {}

/**
 * The parsed URL, or a refusal: http:// or https:// only (any other scheme is not a webhook), no user:password (it
 * would be sent in the clear to whoever answers, and kept in logs). The WHATWG parser writes `http://2130706433/`
 * and `http://0177.0.0.1/` as 127.0.0.1, so an IP literal in any spelling is checked as the address it is.
 */
export function parseTargetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new RefusedTarget(
      'The Webhook URL is not a URL: give one such as https://hooks.example.com/proplens.',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RefusedTarget('The Webhook URL must start with https:// (or http://).');
  if (url.username || url.password)
    throw new RefusedTarget(
      'The Webhook URL must not hold a user name or password: put a token in its path.',
    );
  // The WHATWG parser leaves port '' for the scheme's default (80, 443).
  const port = url.port === '' ? null : Number(url.port);
  if (port !== null && port !== 80 && port !== 443 && port < 1024)
    throw new RefusedTarget(
      `The Webhook URL's port ${port} is refused: PropLens sends webhooks to ports 80, 443 and 1024 and above ` +
        '(the ports below 1024 are mail, SSH, DNS and other services that are not webhook receivers).',
    );
  return url;
}

/** Why the address is not a public one, or null when it is. */
export function privateRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // ::ffff:127.0.0.1 is 127.0.0.1 to the socket: judged as the IPv4 address it carries.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    // Global unicast IPv6 is 2000::/3 only. Outside it ipaddr.js still calls some addresses 'unicast': the
    // deprecated IPv4-compatible ::/96 (::7f00:1 is ::127.0.0.1, which some stacks route to 127.0.0.1) and every
    // block IANA has not allocated. The carried IPv4 address names the range when it is a private one.
    else if (!v6.match(GLOBAL_UNICAST_V6)) {
      const inner = ipaddr.fromByteArray(v6.toByteArray().slice(12)).range();
      const range = v6.range();
      if (range !== 'unicast') return range;
      return inner !== 'unicast' ? inner : 'ipv4Compatible';
    }
  }
  const range = ip.range();
  // Allow-list, not deny-list: only global unicast. Loopback, private, linkLocal, uniqueLocal, carrierGradeNat,
  // unspecified, multicast, broadcast, reserved and the translation ranges (6to4, teredo, rfc6052 …) that could
  // carry an inner private address all fall out here, and so does any range ipaddr.js names later.
  return range === 'unicast' ? null : range;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The hostname as DNS and an IP parser want it: `[::1]` without brackets. */
function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/**
 * Checks a URL for one attempt (or for saving it): parsed as above, its host resolved now and every address it
 * resolves to public (one private address among public ones refuses it too: the connection might pick that one),
 * unless `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: on-premises receivers and tests). Answers the first
 * address, which the attempt connects to. `signal` ends the wait for DNS: the lookup is part of the attempt's
 * timeout (a resolver that never answers held a sender past it), and rejects with the signal's reason.
 */
export async function checkTarget(
  text: string,
  options: { allowPrivate: boolean; resolve?: Resolve; signal?: AbortSignal },
): Promise<CheckedTarget> {
  const url = parseTargetUrl(text);
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await withinDeadline((options.resolve ?? systemResolve)(host), options.signal);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new RefusedTarget(`The host ${host} of the Webhook URL could not be found (DNS).`);
    }
  }
  const first = addresses[0];
  if (!first) throw new RefusedTarget(`The host ${host} of the Webhook URL has no address (DNS).`);
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const range = privateRange(address);
      if (range !== null)
        throw new RefusedTarget(
          `The Webhook URL leads to ${address} (${describe(range)}): PropLens sends webhooks only to public ` +
            'internet addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private networks).',
        );
    }
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * The lookup, or the signal's reason once it aborts: `dns.lookup` cannot be cancelled (it runs on libuv's thread
 * pool), so the attempt stops waiting for it instead.
 */
function withinDeadline<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

const WORDS: Record<string, string> = {
  loopback: 'this machine itself',
  private: 'a private network',
  uniqueLocal: 'a private network',
  linkLocal: 'a link-local address, such as a cloud metadata service',
  carrierGradeNat: 'a carrier-grade NAT range',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address, which is not routed on the internet',
};

function describe(range: string): string {
  return Object.hasOwn(WORDS, range) ? (WORDS[range] as string) : `a reserved range, ${range}`;
}
