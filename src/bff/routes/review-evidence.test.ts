import { generateKeyPairSync } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { EVIDENCE_KEYS_PATH } from '../evidence/keys-route.ts';
import { finishedReview, uploadReview } from '../test-support/review-api.ts';
import { reviewDatabase } from '../test-support/review-database.ts';

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
});
