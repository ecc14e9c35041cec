import { generateKeyPairSync } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { EVIDENCE_KEYS_PATH } from '../evidence/keys-route.ts';
import { clientToken, fileRows, finished, finishedReview, uploadReview } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * Export evidence over HTTP (issue 30): a finished review's packet holds the exports as they download, its runs
 * and the signed manifest; it verifies against this server's JWKS, and a changed byte or another key does not.
 */

const db = reviewDatabase('review-evidence');

describe('GET /api/reviews/:id/evidence.zip', () => {
  it('is the exports, the runs and a manifest signed with the key the JWKS publishes', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St', 'Nowhere at all'], {
      name: 'Q3: "Dana’s" / portfolio',
    });
    const res = await h.call(`/api/reviews/${review.id}/evidence.zip`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="Q3 Danas portfolio.evidence.zip"',
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
      /^Verified: signed by PropLens at localhost on \d{4}-\d\d-\d\d; 4 files, none changed$/,
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

  it('carries the file the review came from, byte for byte, sent once by the key that started it', async () => {
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
    const id = await uploadReview(h, fileRows(addresses), {
      kind: 'csv',
      columns: ['address'],
      origin: 'portfolio.csv',
    });
    const put = (bytes: Uint8Array, name = '../x/portfolio Q3.csv') => sendFile(h, id, bytes, name);
    expect((await put(file)).status).toBe(201);
    expect((await put(file)).status).toBe(200);
    expect((await put(file.slice(1))).status).toBe(409);
    expect((await put(new Uint8Array(20 * 1024 * 1024 + 1))).status).toBe(413);
    h.reviews?.worker.start();
    await finished(h, id);
    const zip = new Uint8Array(await (await h.call(`/api/reviews/${id}/evidence.zip`)).arrayBuffer());
    const files = unzipSync(zip);
    expect(files['source/portfolio Q3.csv']).toEqual(file);
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    expect((await verifyPacket(zip, jwks)).summary).toMatch(/; 5 files, none changed$/);

    const colleague = db.make();
    await colleague.signIn('pi_demo_professional_2');
    expect((await sendFile(colleague, id, file, 'other.csv')).status).toBe(409);
    const pasted = await uploadReview(h, addresses);
    expect((await sendFile(h, pasted, file, 'x.csv')).status).toBe(409);
  });
});

/** PUT the raw bytes of a review's file, as the browser sends them after creating the review. */
const sendFile = (h: Harness, id: string, bytes: Uint8Array, name: string) =>
  h.app.request(`/api/reviews/${id}/source?name=${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers: { cookie: h.cookie, 'X-Requested-With': 'proplens', 'Content-Type': 'application/octet-stream' },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
