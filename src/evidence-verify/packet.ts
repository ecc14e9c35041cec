import { unzipSync } from 'fflate';
import { compactVerify, createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';

/*
 * An evidence packet (docs/decisions/014-evidence-formats.md, "The evidence packet") and its check, the same in
 * `npm run verify` and on the /verify page. Browser-safe on purpose: it imports only fflate and jose, and hashes
 * and verifies with WebCrypto (globalThis.crypto, in Node 20 as in the browser), so the web app and the script
 * import this folder rather than either reaching into the other's (src/web may not import node:*, src/contract
 * imports nothing but zod).
 */

/** The signed manifest's name and its JWS's inside the ZIP. */
export const MANIFEST = 'manifest.json';
export const MANIFEST_JWS = 'manifest.jws';

/** A file of the packet as the manifest states it. */
export interface PacketFile {
  name: string;
  bytes: number;
  /** SHA-256 of the file's bytes, lowercase hex. */
  sha256: string;
}

/** What manifest.json says (the JWS signs its exact bytes). */
export interface PacketManifest {
  type: 'proplens-evidence-packet';
  v: 1;
  /** When it was exported (ISO 8601, the BFF's clock). */
  exportedAt: string;
  /** The PropLens that exported it: its version and the host it was reached at. */
  proplens: { version: string; host: string };
  /** The property service's base URL the lookups went to. */
  service: { baseUrl: string };
  review: {
    id: string;
    name: string;
    account: { id: string; name: string };
    startedBy: { fingerprint: string; name: string | null };
    startedAt: string;
    rows: number;
  };
  runs: { number: number; startedAt: string; finishedAt: string | null }[];
  /** Sign-off and approval, by key and name; null while the review is not signed off. */
  signOff: PacketSignOff | null;
  /** The file the review came from, when it came from one: its name and when it was received (ISO 8601). */
  source?: { name: string; receivedAt: string } | null;
  /** Every other file of the packet (manifest.json is proved by the signature). */
  files: PacketFile[];
  audit: {
    /** The chain's checkpoint signed at export time (checkpoints.ts). */
    checkpoint: {
      entries: number;
      headId: number;
      headHash: string;
      at: string;
      keyId: string;
      signature: string;
    };
    /** The audit entries behind the review's rows: id, row (0-based), kind and chain hash. */
    entries: { id: number; row: number | null; kind: string; hash: string }[];
  };
}

/**
 * A sign-off as the manifest states it (the JSON export's): by key and name, the run signed off (absent in packets
 * exported before sign-offs named their run), and the approval by another key.
 */
export interface PacketSignOff {
  by: string;
  byName?: string | null;
  at: string;
  run?: number;
  reason: string | null;
  approved: { by: string; byName?: string | null; at: string } | null;
}

/**
 * The sign-off in one line, for the page and `npm run verify`: "Signed off on run 2 by Dana Ortiz (f2d66925) on
 * 2026-11-26; approved by …", or "Not signed off". Names come from the signed manifest, written as shown().
 */
export function signOffLine(signOff: PacketSignOff | null | undefined): string {
  if (!signOff) return 'Not signed off.';
  const who = (by: string, name: string | null | undefined) =>
    name ? `${shown(name)} (${shown(by)})` : shown(by);
  const run = typeof signOff.run === 'number' ? ` on run ${signOff.run}` : '';
  const approved = signOff.approved
    ? `; approved by ${who(signOff.approved.by, signOff.approved.byName)} on ${signOff.approved.at.slice(0, 10)}`
    : '; not approved';
  return `Signed off${run} by ${who(signOff.by, signOff.byName)} on ${signOff.at.slice(0, 10)}${approved}.`;
}

export interface PacketVerdict {
  ok: boolean;
  /** One line: "Verified: …", or what does not match. */
  summary: string;
  /** Each thing that does not match, in words ("results.csv was changed"). */
  problems: string[];
  /** The signed manifest, when the signature holds. */
  manifest?: PacketManifest;
}

const hex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

const refused = (problem: string): PacketVerdict => ({ ok: false, summary: problem, problems: [problem] });

/**
 * Checks a packet against the JWKS the verifier chose (never a key from the packet: it would prove nothing):
 * the signature over manifest.json, then every file's SHA-256 against the signed manifest, and that no file was
 * added or removed.
 */
export async function verifyPacket(zip: Uint8Array, jwks: JSONWebKeySet): Promise<PacketVerdict> {
  let files: Map<string, Uint8Array>;
  try {
    const read = readEntries(zip);
    if (typeof read === 'string') return refused(`Not verified: ${read}.`);
    files = read;
  } catch {
    return refused('This is not a ZIP file: an evidence packet is the .evidence.zip PropLens exported.');
  }
  const jws = files.get(MANIFEST_JWS);
  const manifestBytes = files.get(MANIFEST);
  if (!jws) return refused(`${MANIFEST_JWS} was removed: nothing says who signed this packet.`);
  if (!manifestBytes) return refused(`${MANIFEST} was removed.`);
  let payload: Uint8Array;
  let kid: string | undefined;
  try {
    const verified = await compactVerify(new TextDecoder().decode(jws), createLocalJWKSet(jwks), {
      algorithms: ['EdDSA'],
    });
    payload = verified.payload;
    kid = verified.protectedHeader.kid;
  } catch (err) {
    if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
      return refused('Not verified: signed by a key not in the JWKS.');
    if (err instanceof errors.JWSSignatureVerificationFailed)
      return refused(`Not verified: ${MANIFEST_JWS} was changed (its signature does not match).`);
    return refused(`Not verified: ${MANIFEST_JWS} is not a signature PropLens made.`);
  }
  const manifest = JSON.parse(new TextDecoder().decode(payload)) as PacketManifest;
  const problems: string[] = [];
  // A key verifies what it signed while it was the key (the JWKS's valid_from and valid_to, keys-route.ts): a
  // retired key nothing after, and no key anything dated before it existed (a backdated packet).
  const validity = jwks.keys.find((k) => k.kid === kid) as
    | { valid_from?: string | null; valid_to?: string | null }
    | undefined;
  const exported = Date.parse(manifest.exportedAt);
  const from = validity?.valid_from ? Date.parse(validity.valid_from) : undefined;
  const to = validity?.valid_to ? Date.parse(validity.valid_to) : undefined;
  if (from !== undefined && !(exported >= from)) problems.push('signed before its key existed');
  if (to !== undefined && !(exported <= to)) problems.push('signed after its key was retired');
  if (!sameBytes(payload, manifestBytes)) problems.push(`${MANIFEST} was changed`);
  const listed = new Set([MANIFEST, MANIFEST_JWS]);
  for (const file of manifest.files) {
    listed.add(file.name);
    const bytes = files.get(file.name);
    if (!bytes) problems.push(`${shown(file.name)} was removed`);
    else if ((await sha256Hex(bytes)) !== file.sha256) problems.push(`${shown(file.name)} was changed`);
  }
  for (const name of files.keys()) if (!listed.has(name)) problems.push(`${shown(name)} was added`);
  if (problems.length > 0)
    return { ok: false, summary: `Not verified: ${problems.join('; ')}.`, problems, manifest };
  const count = manifest.files.length + 1;
  return {
    ok: true,
    summary: `Verified: signed by PropLens ${hostWords(manifest.proplens.host)} on ${manifest.exportedAt.slice(0, 10)}; ${count} files, none changed`,
    problems,
    manifest,
  };
}

// C0 and C1 controls, and the bidirectional overrides and isolates: characters that can make a name read as another
// on a screen or a terminal (a name that rewrites the verdict's line, or shows "csv.exe" as "exe.csv").
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const DECEIVING = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const deceiving = (name: string) => new RegExp(DECEIVING.source, 'u').test(name);

/**
 * What a packet says it was exported at when the server named no host of its own (ALLOWED_HOSTS unset): the BFF
 * never takes the request's Host alone (src/bff/routes/review-evidence.ts packetHost).
 */
export const UNCONFIGURED_HOST = 'unconfigured host';

/** "at proplens.example", or, from a server with no host configured, said so rather than "at unconfigured host". */
const hostWords = (host: string) =>
  host === UNCONFIGURED_HOST ? '(its host name was not configured)' : `at ${shown(host)}`;

/** A ZIP entry's name as the verdict may print it: every deceiving character written as an escape. */
const shown = (name: string) =>
  name.replace(DECEIVING, (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`);

/**
 * Every entry of the ZIP by name, or why the archive cannot be a packet PropLens wrote. A ZIP may carry two
 * entries of one name, and tools disagree on which one is "the" file (fflate keeps the last, `unzip -p` prints the
 * first): a packet with a second results.csv would verify one and show the other, so any repeated name is refused.
 * So are names that could not come from PropLens and that tools read as something else: a path that climbs (`..`)
 * or starts at the root, backslashes, deceiving characters, and a directory entry carrying bytes. Names are kept in
 * a Map, not an object: an entry named `__proto__` is a name like any other.
 */
function readEntries(zip: Uint8Array): Map<string, Uint8Array> | string {
  const names: string[] = [];
  let problem: string | undefined;
  const extracted = unzipSync(zip, {
    filter(entry) {
      const name = entry.name;
      if (names.includes(name)) problem ??= `the ZIP holds two entries named ${shown(name)}`;
      else if (deceiving(name)) problem ??= `an entry's name has control characters: ${shown(name)}`;
      else if (/(^|\/)\.\.(\/|$)|^\/|\\/.test(name)) problem ??= `an entry's name leaves the packet: ${name}`;
      else if (name.endsWith('/') && entry.originalSize > 0)
        problem ??= `a directory entry carries data: ${name}`;
      names.push(name);
      // fflate hands the entries back in a plain object, where `__proto__` would set its prototype: such a name is
      // not extracted (PropLens never writes one, so it can only be reported as added).
      return !name.endsWith('/') && !(name in Object.prototype);
    },
  });
  if (problem) return problem;
  const files = new Map<string, Uint8Array>();
  for (const name of names) {
    if (name.endsWith('/')) continue;
    if (name in Object.prototype) {
      files.set(name, new Uint8Array());
      continue;
    }
    const bytes = Object.hasOwn(extracted, name) ? extracted[name] : undefined;
    if (!bytes) return `an entry could not be read: ${shown(name)}`;
    files.set(name, bytes);
  }
  return files;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
