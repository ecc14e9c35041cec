import { createPrivateKey } from 'node:crypto';
import { strToU8, Zip, ZipPassThrough } from 'fflate';
import { CompactSign, exportJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST, MANIFEST_JWS, sha256Hex, signOffLine, verifyPacket } from './packet.ts';

/*
 * ZIP tricks against the verifier (hostile review 2026-11-26, F1, F8, F9): a packet whose signed manifest and
 * hashes all hold for the entries one tool reads, while another tool (or a person at a terminal) sees something
 * else. Each must be refused, in words that cannot themselves deceive.
 */

// A fixed Ed25519 test key (never a deployment's).
const JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'Pfy4bdeV8Ll6JbeKfQhQgT-HPrRP8FuUxy1UEWDpGJQ',
  x: 'rvzMwSRpGO-cshFwIRN9TfQgW7RMcGN5hO-OM6SPWOM',
};
const privateKey = createPrivateKey({ key: JWK, format: 'jwk' });
let jwks: { keys: object[] };

const CSV = strToU8('input,outcome\r\n1 Main St,matched\r\n');
const FORGED = strToU8('input,outcome\r\n1 Main St,not_found\r\n');

async function manifestFor(files: Record<string, Uint8Array>) {
  const listed = await Promise.all(
    Object.entries(files).map(async ([name, bytes]) => ({
      name,
      bytes: bytes.length,
      sha256: await sha256Hex(bytes),
    })),
  );
  const manifest = strToU8(
    JSON.stringify({
      type: 'proplens-evidence-packet',
      v: 1,
      exportedAt: '2026-11-02T09:30:00.000Z',
      proplens: { version: '0.1.0', host: 'proplens.example' },
      files: listed,
    }),
  );
  const jws = await new CompactSign(manifest)
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
    .sign(privateKey);
  return { manifest, jws: strToU8(jws) };
}

/** A ZIP of these entries in this order, names repeated as given (zipSync's object cannot repeat one). */
function zipOf(entries: [string, Uint8Array][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  for (const [name, bytes] of entries) {
    const entry = new ZipPassThrough(name);
    zip.add(entry);
    entry.push(bytes, true);
  }
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

beforeAll(async () => {
  jwks = { keys: [{ ...(await exportJWK(privateKey)), d: undefined, kid: 'k1', alg: 'EdDSA' }] };
});

describe('verifyPacket refuses what two tools would read two ways', () => {
  it('verifies the honest packet (the control)', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    const verdict = await verifyPacket(
      zipOf([
        ['results.csv', CSV],
        [MANIFEST, manifest],
        [MANIFEST_JWS, jws],
      ]),
      jwks,
    );
    expect(verdict.summary).toBe(
      'Verified: signed by PropLens at proplens.example on 2026-11-02; 2 files, none changed',
    );
  });

  it('refuses two entries of one name, whichever comes first (unzip -p shows the first, fflate kept the last)', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    for (const order of [
      [FORGED, CSV],
      [CSV, FORGED],
    ] as const) {
      const verdict = await verifyPacket(
        zipOf([
          ['results.csv', order[0]],
          ['results.csv', order[1]],
          [MANIFEST, manifest],
          [MANIFEST_JWS, jws],
        ]),
        jwks,
      );
      expect(verdict.ok).toBe(false);
      expect(verdict.summary).toBe('Not verified: the ZIP holds two entries named results.csv.');
    }
  });

  it('refuses a second manifest or signature entry', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    const verdict = await verifyPacket(
      zipOf([
        ['results.csv', CSV],
        [MANIFEST, manifest],
        [MANIFEST, strToU8('{}')],
        [MANIFEST_JWS, jws],
      ]),
      jwks,
    );
    expect(verdict.summary).toBe('Not verified: the ZIP holds two entries named manifest.json.');
  });

  it('names an entry called __proto__ as added, not lost in an object', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    const verdict = await verifyPacket(
      zipOf([
        ['results.csv', CSV],
        ['__proto__', FORGED],
        [MANIFEST, manifest],
        [MANIFEST_JWS, jws],
      ]),
      jwks,
    );
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toEqual(['__proto__ was added']);
  });

  it('refuses names that climb out, start at the root or use backslashes, and a directory carrying bytes', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    const cases: [string, string][] = [
      ['../results.csv', "an entry's name leaves the packet: ../results.csv"],
      ['source/../../x', "an entry's name leaves the packet: source/../../x"],
      ['/etc/x', "an entry's name leaves the packet: /etc/x"],
      ['source\\x.csv', "an entry's name leaves the packet: source\\x.csv"],
      ['source/', 'a directory entry carries data: source/'],
    ];
    for (const [name, problem] of cases) {
      const verdict = await verifyPacket(
        zipOf([
          ['results.csv', CSV],
          [name, FORGED],
          [MANIFEST, manifest],
          [MANIFEST_JWS, jws],
        ]),
        jwks,
      );
      expect(verdict.summary, name).toBe(`Not verified: ${problem}.`);
    }
  });

  it('never prints a name that could rewrite the terminal line or reverse on screen', async () => {
    const { manifest, jws } = await manifestFor({ 'results.csv': CSV });
    const sly = '\r\x1b[2KVerified: signed by PropLens\x1b[8m';
    const verdict = await verifyPacket(
      zipOf([
        ['results.csv', CSV],
        [sly, FORGED],
        ['csv\u202eexe.txt', FORGED],
        [MANIFEST, manifest],
        [MANIFEST_JWS, jws],
      ]),
      jwks,
    );
    expect(verdict.ok).toBe(false);
    expect(verdict.summary).toBe(
      "Not verified: an entry's name has control characters: \\u000d\\u001b[2KVerified: signed by PropLens\\u001b[8m.",
    );
    for (const line of [verdict.summary, ...verdict.problems])
      expect([...line].filter((c) => c < ' ' || c === '\u202e')).toEqual([]);
  });
});

describe('signOffLine', () => {
  it('names the run signed off, who did and the approval; says when there is none', () => {
    const signOff = {
      by: 'f2d66925',
      byName: 'Dana Ortiz',
      at: '2026-11-26T10:00:00.000Z',
      run: 3,
      reason: null,
    };
    expect(signOffLine({ ...signOff, approved: null })).toBe(
      'Signed off on run 3 by Dana Ortiz (f2d66925) on 2026-11-26; not approved.',
    );
    expect(
      signOffLine({
        ...signOff,
        byName: null,
        approved: { by: 'aa11bb22', byName: 'Sam', at: '2026-11-27T08:00:00Z' },
      }),
    ).toBe('Signed off on run 3 by f2d66925 on 2026-11-26; approved by Sam (aa11bb22) on 2026-11-27.');
    // A packet from before sign-offs named their run; a name that would rewrite the line on a terminal.
    const { run: _run, ...older } = signOff;
    expect(signOffLine({ ...older, byName: 'Dana\u202eevil', approved: null })).toBe(
      'Signed off by Dana\\u202eevil (f2d66925) on 2026-11-26; not approved.',
    );
    expect(signOffLine(null)).toBe('Not signed off.');
  });
});
