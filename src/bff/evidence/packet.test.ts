import { createPrivateKey, createPublicKey } from 'node:crypto';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReviewSummary } from '../../contract/index.ts';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { tempDatabaseAll } from '../test-support/temp-database.ts';
import { Checkpoints } from './checkpoints.ts';
import { type BuiltManifest, EvidencePackets } from './packet.ts';
import { thumbprint } from './signing-key.ts';

/*
 * The evidence packet's manifest, golden against a fixed clock and a fixed key: what an auditor reads stays what
 * ADR 014 says, byte for byte, and the packet verifies against the key's JWKS.
 */

const FIXED = Date.parse('2026-11-02T09:30:00.000Z');
// A fixed Ed25519 test key (never a deployment's): the signatures are the same at every run.
const JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'Pfy4bdeV8Ll6JbeKfQhQgT-HPrRP8FuUxy1UEWDpGJQ',
  x: 'rvzMwSRpGO-cshFwIRN9TfQgW7RMcGN5hO-OM6SPWOM',
};
const privateKey = createPrivateKey({ key: JWK, format: 'jwk' });
const publicKey = createPublicKey(privateKey);
const key = { privateKey, publicKey, keyId: thumbprint(publicKey) };

const review: ReviewSummary = {
  id: 'rev-1',
  name: 'Portfolio Q3',
  kind: 'csv',
  origin: 'portfolio.csv',
  createdBy: 'fp-dana',
  createdAt: '2026-11-01T08:00:00.000Z',
  status: 'done',
  columns: ['address'],
  totalRows: 2,
  receivedRows: 2,
  skippedBlank: 0,
  runs: [
    {
      number: 1,
      startedAt: '2026-11-01T08:00:01.000Z',
      finishedAt: '2026-11-01T08:00:09.000Z',
      counts: { total: 2, done: 2, matched: 1, notFound: 1, ambiguous: 0, failed: 0 },
    },
  ],
  signOff: null,
};

const temp = tempDatabaseAll('packet');
beforeAll(async () => {
  await new SqlAuditStore(temp.database.db, temp.database.sqlite).append([
    auditEntry({
      at: FIXED - 60_000,
      kind: 'review_row',
      review_id: 'rev-1',
      row_index: 0,
      outcome: 'matched',
    }),
    auditEntry({ at: FIXED - 50_000, kind: 'search', query: 'not this review' }),
    auditEntry({
      at: FIXED - 40_000,
      kind: 'review_row',
      review_id: 'rev-1',
      row_index: 1,
      outcome: 'not_found',
    }),
    auditEntry({
      at: FIXED - 30_000,
      kind: 'review_row',
      account_id: 'other',
      review_id: 'rev-1',
      row_index: 0,
    }),
  ]);
});

const packetsAt = () =>
  new EvidencePackets({
    db: temp.database.db,
    key,
    checkpoints: new Checkpoints(temp.database.db, key, () => FIXED),
    serviceUrl: 'https://property-service.example/v1',
    now: () => FIXED,
  });
const about = {
  review,
  account: { id: 'acct', name: 'Acme Lending' },
  startedByName: 'Dana',
  signOff: null,
  host: 'proplens.example',
};
/** Bytes deflate cannot shrink (a xorshift's), so the ZIP grows with what it is given. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('the evidence packet', () => {
  it('states the review, its runs, the files’ hashes, the checkpoint and the entries behind its rows', async () => {
    const packets = new EvidencePackets({
      db: temp.database.db,
      key,
      checkpoints: new Checkpoints(temp.database.db, key, () => FIXED),
      serviceUrl: 'https://user:secret@property-service.example/v1?token=nope',
      now: () => FIXED,
    });
    const enc = new TextEncoder();
    const { zip, manifest } = await packets.build(
      {
        review,
        account: { id: 'acct', name: 'Acme Lending' },
        startedByName: 'Dana',
        signOff: null,
        host: 'proplens.example',
      },
      [
        { name: 'results.csv', bytes: enc.encode('source_row,input\r\n2,1 Main St\r\n') },
        { name: 'runs.json', bytes: enc.encode('{"runs":[]}\n') },
      ],
    );
    const files = unzipSync(zip);
    expect(Object.keys(files)).toEqual(['results.csv', 'runs.json', 'manifest.json', 'manifest.jws']);
    expect(new TextDecoder().decode(files['manifest.json'])).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(manifest).toMatchInlineSnapshot(`
      {
        "audit": {
          "checkpoint": {
            "at": "2026-11-02T09:30:00.000Z",
            "entries": 4,
            "headHash": "475c9e7c7ed3edfc931d1c18610b52e680dda0e43548af3a04c94f3c669b5043",
            "headId": 4,
            "keyId": "0BUsKcFIRgA7ruFg3zsVS21hrUGiuwo9GATaw2usrcI",
            "signature": "IP7Sguy22t2X6uAZ7HA2sOiaPhDUCzTGMTCR-qCmgFzCx7kbMLe_BCuwKE5I6JaDJZ0tspIzTKabyfnGA7ekAw",
          },
          "entries": [
            {
              "hash": "d6037b176134f5ec11c6520238144d0ae01180d02f8060d806268ec5f9f1c633",
              "id": 1,
              "kind": "review_row",
              "row": 0,
            },
            {
              "hash": "5a91991fe91deea61728102b40c4203cbc0eaade1d32bcdb4cfb355edbbb1665",
              "id": 3,
              "kind": "review_row",
              "row": 1,
            },
          ],
        },
        "exportedAt": "2026-11-02T09:30:00.000Z",
        "files": [
          {
            "bytes": 31,
            "name": "results.csv",
            "sha256": "14dd8ff93ea25b09ea56c7673cb2441dab33de8ddfa1eb5cb69f54ea069e72d4",
          },
          {
            "bytes": 12,
            "name": "runs.json",
            "sha256": "539ba24b9e8fe96285a81d59b05d091b093f25cb38595b414962b1a9cf30379c",
          },
        ],
        "proplens": {
          "host": "proplens.example",
          "version": "0.1.0",
        },
        "review": {
          "account": {
            "id": "acct",
            "name": "Acme Lending",
          },
          "id": "rev-1",
          "name": "Portfolio Q3",
          "rows": 2,
          "startedAt": "2026-11-01T08:00:00.000Z",
          "startedBy": {
            "fingerprint": "fp-dana",
            "name": "Dana",
          },
        },
        "runs": [
          {
            "finishedAt": "2026-11-01T08:00:09.000Z",
            "number": 1,
            "startedAt": "2026-11-01T08:00:01.000Z",
          },
        ],
        "service": {
          "baseUrl": "https://property-service.example/v1",
        },
        "signOff": null,
        "type": "proplens-evidence-packet",
        "v": 1,
      }
    `);
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: key.keyId, alg: 'EdDSA' }] };
    expect((await verifyPacket(zip, jwks)).summary).toBe(
      'Verified: signed by PropLens at proplens.example on 2026-11-02; 3 files, none changed',
    );
  });

  it('is made as its files come: ZIP bytes leave before a file has given its last chunk', async () => {
    const given: number[] = [];
    async function* slowly() {
      for (let i = 0; i < 4; i++) {
        given.push(i);
        yield noise(512 * 1024, i + 1);
      }
    }
    const chunks = packetsAt().stream(about, [{ name: 'results.csv', bytes: slowly() }], {
      facts: () => about,
    });
    const first = await chunks.next();
    expect(first.done).toBe(false);
    // A packet built whole first would have taken all four before its first byte.
    expect(given.length).toBeLessThan(4);
    const parts = [first.value as Uint8Array];
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) parts.push(next.value);
    const zip = new Uint8Array(Buffer.concat(parts));
    expect(unzipSync(zip)['results.csv']).toHaveLength(4 * 512 * 1024);
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: key.keyId, alg: 'EdDSA' }] };
    expect((await verifyPacket(zip, jwks)).ok).toBe(true);
  });

  it('ends with a file’s error, before its manifest: what was sent is no ZIP anyone could take as whole', async () => {
    async function* failing() {
      yield noise(256 * 1024, 7);
      throw new Error('the database went away');
    }
    const chunks = packetsAt().stream(
      about,
      [
        { name: 'results.csv', bytes: failing() },
        { name: 'runs.json', bytes: new TextEncoder().encode('{}') },
      ],
      { facts: () => about },
    );
    const parts: Uint8Array[] = [];
    await expect(
      (async () => {
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) parts.push(next.value);
      })(),
    ).rejects.toThrow('the database went away');
    expect(parts.length).toBeGreaterThan(0);
    expect(() => unzipSync(new Uint8Array(Buffer.concat(parts)))).toThrow();
  });

  it('deflates a large manifest and its JWS a slice at a time, the event loop served between: they leave in pieces', async () => {
    // 30,000 entries behind a review's rows: a manifest of about 5 MB, its JWS 7 MB.
    const entries = Array.from({ length: 30_000 }, (_, i) =>
      auditEntry({ at: FIXED - 1_000, kind: 'review_row', review_id: 'rev-big', row_index: i }),
    );
    await new SqlAuditStore(temp.database.db, temp.database.sqlite).append(entries);
    const big = { ...about, review: { ...review, id: 'rev-big' } };
    const chunks = packetsAt().stream(big, [{ name: 'runs.json', bytes: new TextEncoder().encode('{}') }], {
      facts: () => big,
    });
    // The generator hands over what each slice came to (the two pushed whole came out in one piece), and the
    // event loop turns between two pieces (a slice deflated in the same turn as the next would not let it).
    const order: string[] = [];
    let turning = true;
    const turn = () => {
      if (order.at(-1) !== 't') order.push('t');
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    let manifest: BuiltManifest | undefined;
    try {
      for (let next = await chunks.next(); ; next = await chunks.next()) {
        if (next.done) {
          manifest = next.value;
          break;
        }
        order.push('p');
      }
    } finally {
      turning = false;
    }
    expect(manifest?.audit.entries).toHaveLength(30_000);
    expect(order.filter((o) => o === 'p').length).toBeGreaterThanOrEqual(10);
    expect(order.join('')).not.toContain('pp');
  });
});
