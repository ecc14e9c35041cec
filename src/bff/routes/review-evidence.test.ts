import { generateKeyPairSync } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { EVIDENCE_KEYS_PATH } from '../evidence/keys-route.ts';
import {
  checkAgain,
  clientToken,
  fileRows,
  finished,
  finishedReview,
  uploadReview,
} from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';
import { packetHost } from './review-evidence.ts';

/*
 * Export evidence over HTTP (issue 30): a finished review's packet holds the exports as they download, its runs
 * and the signed manifest; it verifies against this server's JWKS, and a changed byte or another key does not.
 */

const db = reviewDatabase('review-evidence');

describe('GET /api/reviews/:id/evidence.zip', () => {
  it('takes the reader’s day as the exports do: its exports count to it, and its name carries it', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St'], { name: 'Q3 tape' });
    const res = await h.call(`/api/reviews/${review.id}/evidence.zip?today=2031-01-02`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="proplens-q3-tape-2031-01-02.evidence.zip"',
    );
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const csv = await (await h.call(`/api/reviews/${review.id}/export.csv?today=2031-01-02`)).arrayBuffer();
    expect(files['results.csv']).toEqual(new Uint8Array(csv));
    const bad = await h.call(`/api/reviews/${review.id}/evidence.zip?today=2031-02-30`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/today/);
  });

  it('is the exports, the runs and a manifest signed with the key the JWKS publishes', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St', 'Nowhere at all'], {
      name: 'Q3: "Dana’s" / portfolio',
    });
    const res = await h.call(`/api/reviews/${review.id}/evidence.zip`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="proplens-q3-dana-s-portfolio-\d{4}-\d\d-\d\d\.evidence\.zip"$/,
    );
    const zip = new Uint8Array(await res.arrayBuffer());
    const files = unzipSync(zip);
    expect(Object.keys(files)).toEqual([
      'results.csv',
      'results.json',
      'runs.json',
      'manifest.json',
      'manifest.jws',
    ]);
    const csv = new Uint8Array(await (await h.call(`/api/reviews/${review.id}/export.csv`)).arrayBuffer());
    expect(files['results.csv']).toEqual(csv);
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    const verdict = await verifyPacket(zip, jwks);
    expect(verdict.summary).toMatch(
      /^Verified: signed by PropLens \(its host name was not configured\) on \d{4}-\d\d-\d\d; 4 files, none changed$/,
    );
    const manifest = verdict.manifest;
    expect(manifest?.review).toMatchObject({
      id: review.id,
      rows: 2,
      startedBy: { fingerprint: review.createdBy },
    });
    expect(manifest?.runs).toHaveLength(1);
    // Each row's lookup is an audit entry of the chain, and the checkpoint is taken after them.
    expect(manifest?.audit.entries.map((e) => e.row).sort()).toEqual([0, 1]);
    expect(manifest?.audit.checkpoint.headId).toBeGreaterThanOrEqual(
      Math.max(...(manifest?.audit.entries.map((e) => e.id) ?? [])),
    );

    // One byte of the CSV changed, or the manifest edited, or a file slipped in: named.
    const csvChanged = new Uint8Array(files['results.csv'] as Uint8Array);
    const at = csvChanged.length - 3;
    csvChanged[at] = (csvChanged[at] as number) ^ 1;
    expect((await verifyPacket(zipSync({ ...files, 'results.csv': csvChanged }), jwks)).problems).toEqual([
      'results.csv was changed',
    ]);
    const edited = new TextEncoder().encode(
      new TextDecoder().decode(files['manifest.json']).replace('"rows": 2', '"rows": 3'),
    );
    expect((await verifyPacket(zipSync({ ...files, 'manifest.json': edited }), jwks)).problems).toEqual([
      'manifest.json was changed',
    ]);
    const { 'runs.json': _, ...fewer } = files;
    expect((await verifyPacket(zipSync({ ...fewer, 'extra.txt': csv }), jwks)).problems).toEqual([
      'runs.json was removed',
      'extra.txt was added',
    ]);
    // Another key's JWKS: the packet is refused, whatever it says of itself.
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    expect((await verifyPacket(zip, { keys: [{ ...other, kid: 'other', alg: 'EdDSA' }] })).summary).toBe(
      'Not verified: signed by a key not in the JWKS.',
    );
    // Any key of the account exports it.
    await h.signIn('pi_demo_professional_2');
    expect((await h.call(`/api/reviews/${review.id}/evidence.zip`)).status).toBe(200);
  });

  it('is made behind a TLS proxy too, where the session cookie has its __Host- name', async () => {
    const h = db.make({ trustProxy: true });
    const headers = { 'X-Forwarded-Proto': 'https' };
    const signedIn = await h.call('/api/session', {
      method: 'POST',
      body: { apiKey: 'pi_demo_professional' },
      headers,
    });
    expect(signedIn.headers.get('set-cookie')).toMatch(/^__Host-proplens_session=/);
    const body = { clientToken: clientToken(), name: 'TLS', kind: 'paste', columns: [], totalRows: 1 };
    const { id } = (await (await h.call('/api/reviews', { method: 'POST', body, headers })).json()) as {
      id: string;
    };
    const chunk = { index: 0, firstRow: 0, rows: [{ address: '1 Main St' }], last: true };
    expect((await h.call(`/api/reviews/${id}/chunks`, { method: 'PUT', body: chunk, headers })).status).toBe(
      200,
    );
    h.reviews?.worker.start();
    await vi.waitFor(
      async () => expect((await h.call(`/api/reviews/${id}/evidence.zip`, { headers })).status).toBe(200),
      { timeout: 10_000, interval: 50 },
    );
    const res = await h.call(`/api/reviews/${id}/evidence.zip`, { headers });
    expect(Object.keys(unzipSync(new Uint8Array(await res.arrayBuffer())))).toContain('results.csv');
  });

  it('builds at most two packets of an account at once: the others are told to try again (429, Retry-After)', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => h.call(`/api/reviews/${review.id}/evidence.zip`)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const refused = answers.find((r) => r.status === 429) as Response;
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /already exporting 2 evidence packets: try again in a few seconds/,
    );
    // Still held while the two are unread: a packet holds its place until it has been read to its end.
    expect((await h.call(`/api/reviews/${review.id}/evidence.zip`)).status).toBe(429);
    for (const r of answers.filter((a) => a.status === 200)) await r.arrayBuffer();
    // Done, the places are free again.
    expect((await h.call(`/api/reviews/${review.id}/evidence.zip`)).status).toBe(200);
  });

  it('builds packets of every account together up to a number of rows: past it, told to try again', async () => {
    const h = db.make({ evidenceRowsAtOnce: 3 });
    await h.signIn();
    const two = await finishedReview(h, ['1 Main St', '2 Oak Ave'], { name: 'two' });
    const professional = h.cookie;
    // Another browser: a sign-in of its own, the first one's session left as it is.
    h.cookie = '';
    await h.signIn('pi_demo_enterprise');
    const other = await finishedReview(h, ['3 Elm St', '4 Pine Rd'], { name: 'other' });
    const enterprise = h.cookie;
    h.cookie = professional;
    // Two accounts at once, 2 + 2 rows against a bound of 3: one is built, the other told to wait.
    const [a, b] = await Promise.all([
      h.call(`/api/reviews/${two.id}/evidence.zip`, { headers: { cookie: professional } }),
      h.call(`/api/reviews/${other.id}/evidence.zip`, { headers: { cookie: enterprise } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    const refused = a.status === 429 ? a : b;
    await (a.status === 200 ? a : b).arrayBuffer();
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'PropLens is building other evidence packets right now: try again in a few seconds.',
    );
    // One at a time, each is built; a review larger than the bound alone, when nothing else is.
    const alone = await h.call(`/api/reviews/${other.id}/evidence.zip`, { headers: { cookie: enterprise } });
    expect(alone.status).toBe(200);
    await alone.arrayBuffer();
    const four = await finishedReview(h, ['5 Ash Ln', '6 Birch Ct', '7 Cedar Dr', '8 Dogwood Way'], {
      name: 'four',
    });
    expect((await h.call(`/api/reviews/${four.id}/evidence.zip`)).status).toBe(200);
  }, 30_000);

  it('weighs a packet by its rows times its runs (its manifest lists the entries of every run)', async () => {
    const h = db.make({ evidenceRowsAtOnce: 3 });
    await h.signIn();
    const twice = await finishedReview(h, ['1 Main St', '2 Oak Ave'], { name: 'twice' });
    await checkAgain(h, twice.id);
    await finished(h, twice.id, 2);
    const once = await finishedReview(h, ['3 Elm St'], { name: 'once' });
    // 2 rows of 2 runs weigh 4: alone past the bound of 3, it is built, and holds its place until read.
    const held = await h.call(`/api/reviews/${twice.id}/evidence.zip`);
    expect(held.status).toBe(200);
    // Weighed by its rows alone (2), it would leave room for this one's 1.
    expect((await h.call(`/api/reviews/${once.id}/evidence.zip`)).status).toBe(429);
    await held.arrayBuffer();
    const after = await h.call(`/api/reviews/${once.id}/evidence.zip`);
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  });

  it('is refused while the review runs, for another account, and without a session', async () => {
    const h = db.make();
    await h.signIn();
    const running = await uploadReview(h, ['1 Main St']);
    expect((await h.call(`/api/reviews/${running}/evidence.zip`)).status).toBe(409);
    await h.signIn('pi_demo_enterprise');
    expect((await h.call(`/api/reviews/${running}/evidence.zip`)).status).toBe(404);
    h.cookie = '';
    expect((await h.call(`/api/reviews/${running}/evidence.zip`)).status).toBe(401);
  });

  it('carries the file the review came from, byte for byte, sent once while its rows come, by the key that started it', async () => {
    const h = db.make();
    await h.signIn();
    const addresses = ['1 Main St', '2 Oak Ave'];
    // Every byte value, a BOM and CRLFs: what was received is what is packed.
    const file = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('address\r\n1 Main St\r\n2 Oak Ave\r\n'),
      ...Array.from({ length: 256 }, (_, i) => i),
    ]);
    // As the browser sends it (start/upload.ts): the review created, its file, then its rows.
    const id = await created(h, addresses.length);
    const put = (bytes: Uint8Array, name = '../x/portfolio Q3.csv') => sendFile(h, id, bytes, name);
    expect((await put(file)).status).toBe(201);
    expect((await put(file)).status).toBe(200);
    expect((await put(file.slice(1))).status).toBe(409);
    await sendRows(h, id, addresses);
    // Once every row is in (run 1 starts), no file is taken: not other bytes, not these again.
    const late = await put(file.slice(1));
    expect(late.status).toBe(409);
    expect(await messageOf(late)).toMatch(/only while its rows are being sent/);
    expect((await put(file)).status).toBe(409);
    h.reviews?.worker.start();
    const review = await finished(h, id);
    const zip = new Uint8Array(await (await h.call(`/api/reviews/${id}/evidence.zip`)).arrayBuffer());
    const files = unzipSync(zip);
    expect(files['source/portfolio Q3.csv']).toEqual(file);
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    const verdict = await verifyPacket(zip, jwks);
    expect(verdict.summary).toMatch(/; 5 files, none changed$/);
    // When it came: before the first run started.
    const { source } = verdict.manifest as { source?: { name: string; receivedAt: string } };
    expect(source?.name).toBe('portfolio Q3.csv');
    expect(Date.parse(source?.receivedAt ?? '')).toBeLessThanOrEqual(
      Date.parse(review.runs[0]?.startedAt ?? ''),
    );

    const colleague = db.make();
    await colleague.signIn('pi_demo_professional_2');
    expect((await sendFile(colleague, id, file, 'other.csv')).status).toBe(409);
    const pasted = await created(h, 1, { kind: 'paste' });
    expect((await sendFile(h, pasted, file, 'x.csv')).status).toBe(409);
  });

  it('takes a file only as large as the review’s rows make it, cut at that limit', async () => {
    const h = db.make();
    await h.signIn();
    const small = await created(h, 2);
    // 2 rows: at most 1 MB. Declared too large: refused before a byte is read.
    const declared = await sendFile(h, small, new Uint8Array(1024 * 1024 + 1), 'big.csv');
    expect(declared.status).toBe(413);
    expect(await messageOf(declared)).toBe('The file of a review of 2 rows is at most 1 MB.');
    // Streamed without a length (chunked): read until the limit is passed, then cut, never read whole.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const streamed = await h.app.request(`/api/reviews/${small}/source?name=big.csv`, {
      method: 'PUT',
      headers: {
        cookie: h.cookie,
        'X-Requested-With': 'proplens',
        'Content-Type': 'application/octet-stream',
      },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1024 * 1024 + 4 * 64 * 1024);
    // 1 MB fits.
    expect((await sendFile(h, small, new Uint8Array(1024 * 1024).fill(65), 'a.csv')).status).toBe(201);
    // A review of 300 rows, 100 more of its file's rows blank: 4 KB each of 400 rows.
    const large = await created(h, 300, { skippedBlank: 100 });
    expect((await sendFile(h, large, new Uint8Array(4096 * 400 + 1).fill(65), 'b.csv')).status).toBe(413);
    expect((await sendFile(h, large, new Uint8Array(4096 * 400).fill(65), 'b.csv')).status).toBe(201);
  });

  it('says the host it was exported at only when ALLOWED_HOSTS names it, never what the client sent', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    const res = await h.call(`/api/reviews/${review.id}/evidence.zip`, { headers: { host: '8.8.8.8' } });
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    const verdict = await verifyPacket(new Uint8Array(await res.arrayBuffer()), jwks);
    expect(verdict.manifest?.proplens.host).toBe('unconfigured host');
    expect(verdict.summary).toMatch(/^Verified: signed by PropLens \(its host name was not configured\) on /);

    const allowed = ['proplens.example.com', '*.example.org', '8.8.8.8'];
    expect(packetHost('PropLens.Example.com:8443', allowed)).toBe('proplens.example.com');
    expect(packetHost('proplens.example.com.', allowed)).toBe('proplens.example.com');
    expect(packetHost('8.8.8.8', allowed)).toBe('unconfigured host');
    expect(packetHost('[::1]:8080', allowed)).toBe('unconfigured host');
    expect(packetHost('evil.example.org', allowed)).toBe('unconfigured host');
    expect(packetHost('*.example.org', allowed)).toBe('unconfigured host');
    expect(packetHost('localhost', allowed)).toBe('unconfigured host');
    expect(packetHost(undefined, allowed)).toBe('unconfigured host');
  });
});

const messageOf = async (res: Response) =>
  ((await res.json()) as { error: { message: string } }).error.message;

/** A file review of `totalRows` rows just created (no rows sent yet), as the browser creates one. */
async function created(h: Harness, totalRows: number, over: Record<string, unknown> = {}): Promise<string> {
  const body = {
    clientToken: clientToken(),
    name: 'Collateral',
    kind: 'csv',
    columns: ['address'],
    origin: 'portfolio.csv',
    totalRows,
    ...over,
  };
  const res = await h.call('/api/reviews', { method: 'POST', body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Every row of the review in one chunk: its first run starts. */
async function sendRows(h: Harness, id: string, addresses: readonly string[]) {
  const rows = fileRows(addresses);
  const chunk = { index: 0, firstRow: 0, rows, last: true };
  const res = await h.call(`/api/reviews/${id}/chunks`, { method: 'PUT', body: chunk });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** PUT the raw bytes of a review's file, as the browser sends them after creating the review, before its rows. */
const sendFile = (h: Harness, id: string, bytes: Uint8Array, name: string) =>
  h.app.request(`/api/reviews/${id}/source?name=${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers: { cookie: h.cookie, 'X-Requested-With': 'proplens', 'Content-Type': 'application/octet-stream' },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
