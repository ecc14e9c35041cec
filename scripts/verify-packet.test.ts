import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/bff/db/database.ts';
import { Checkpoints } from '../src/bff/evidence/checkpoints.ts';
import { EvidencePackets } from '../src/bff/evidence/packet.ts';
import { loadSigningKey } from '../src/bff/evidence/signing-key.ts';
import type { ReviewSummary } from '../src/contract/index.ts';
import { verifyCommand } from './verify-packet.ts';

/*
 * `npm run verify`: a packet checks out against the JWKS given as a file or a URL (exit 0, the summary); a changed
 * byte or another key's JWKS is named (exit 1).
 */

const PORT = 5611;
let dir = '';
let database: Database;
let server: Server;
let packet = '';
let jwksFile = '';
let zip: Uint8Array;

const review: ReviewSummary = {
  id: 'rev-9',
  name: 'Collateral',
  kind: 'paste',
  origin: null,
  createdBy: 'fp-dana',
  createdAt: '2026-11-01T08:00:00.000Z',
  status: 'done',
  columns: [],
  totalRows: 1,
  receivedRows: 1,
  skippedBlank: 0,
  runs: [],
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'proplens-verify-'));
  database = await openDatabase({ dir: join(dir, 'db') });
  const key = loadSigningKey(undefined, join(dir, 'db'));
  // The checkpoints' clock is the packets': a packet dated before its key was registered is refused.
  const checkpoints = new Checkpoints(database.db, key, () => Date.parse('2026-11-02T10:00:00.000Z'));
  const packets = new EvidencePackets({
    db: database.db,
    key,
    checkpoints,
    serviceUrl: 'http://service.test/',
    now: () => Date.parse('2026-11-02T10:00:00.000Z'),
  });
  const enc = new TextEncoder();
  ({ zip } = await packets.build(
    {
      review,
      account: { id: 'a', name: 'Acme' },
      startedByName: null,
      signOff: {
        by: 'fp-dana',
        byName: 'Dana',
        at: '2026-11-02T09:00:00.000Z',
        run: 1,
        reason: null,
        approved: null,
      },
      host: 'proplens.test',
    },
    [
      { name: 'results.csv', bytes: enc.encode('input,outcome\r\n1 Main St,matched\r\n') },
      { name: 'results.json', bytes: enc.encode('{"rows":[]}\n') },
      { name: 'runs.json', bytes: enc.encode('{"runs":[]}\n') },
    ],
  ));
  packet = join(dir, 'Collateral.evidence.zip');
  writeFileSync(packet, zip);
  const jwks = JSON.stringify({ keys: await checkpoints.keys() });
  jwksFile = join(dir, 'keys.json');
  writeFileSync(jwksFile, jwks);
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('npm run verify', () => {
  it('verifies a packet against a JWKS file and a JWKS URL', async () => {
    for (const keys of [jwksFile, `http://127.0.0.1:${PORT}/.well-known/proplens-evidence-keys.json`]) {
      const { code, out } = await run(packet, '--keys', keys);
      expect(code).toBe(0);
      expect(out[0]).toBe(
        `Verified: signed by PropLens at proplens.test on 2026-11-02; 4 files, none changed`,
      );
      expect(out.join('\n')).toMatch(/results\.csv {2}\d+ bytes {2}sha256 [0-9a-f]{64}/);
      expect(out).toContain('Signed off on run 1 by Dana (fp-dana) on 2026-11-02; not approved.');
    }
  });

  it('names a changed file, and refuses a key not in the JWKS', async () => {
    const files = unzipSync(zip);
    const csv = new Uint8Array(files['results.csv'] as Uint8Array);
    csv[0] = 'I'.charCodeAt(0);
    const changed = join(dir, 'changed.zip');
    writeFileSync(changed, zipSync({ ...files, 'results.csv': csv }));
    expect(await run(changed, '--keys', jwksFile)).toMatchObject({
      code: 1,
      err: ['Not verified: results.csv was changed.'],
    });
    const other = join(dir, 'other.json');
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    writeFileSync(other, JSON.stringify({ keys: [{ ...jwk, kid: 'someone-else' }] }));
    expect(await run(packet, '--keys', other)).toMatchObject({
      code: 1,
      err: ['Not verified: signed by a key not in the JWKS.'],
    });
    // The key retired before the packet's date: it verifies nothing signed after.
    const retired = join(dir, 'retired.json');
    const published = readFileSync(jwksFile, 'utf8');
    const keysThen = JSON.parse(published) as { keys: Record<string, unknown>[] };
    writeFileSync(
      retired,
      JSON.stringify({ keys: keysThen.keys.map((k) => ({ ...k, valid_to: '2026-11-01T00:00:00.000Z' })) }),
    );
    expect(await run(packet, '--keys', retired)).toMatchObject({
      code: 1,
      err: ['Not verified: signed after its key was retired.'],
    });
    expect((await run(packet)).code).toBe(2);
  });
});
