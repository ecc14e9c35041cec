import { createHash } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionResponse } from '../../contract/index.ts';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import type { StoredAnswer } from '../reviews/look-up-row.ts';
import { hashKey, keyFingerprint } from '../stores/sessions/types.ts';
import { reviewDatabase } from '../test-support/review-database.ts';
import { seedReview } from '../test-support/seed-review.ts';
import { EVIDENCE_KEYS_PATH } from './keys-route.ts';
import { ReviewSources } from './packet-source.ts';

/*
 * The whole evidence packet of a small file review, golden (issue 30): exactly these files; the exports, the
 * file as received and the runs byte for byte (the review's random id aside); the manifest's hashes those of its
 * files, its JWS verified against the JWKS this server publishes with the manifest's very bytes as payload, and
 * it names the run signed off. Then one byte of each file changed in turn: `verify` names that file.
 */

const db = reviewDatabase('packet-golden');
const FIXED = Date.parse('2026-11-26T10:00:00.000Z');
const KEY = 'pi_demo_professional';
const NOT_FOUND: StoredAnswer = {
  outcome: 'not_found',
  cached: false,
  retrievedAt: '2026-11-01T09:00:00.000Z',
};
// The file as the reviewer chose it: a byte order mark, CRLF, a quoted comma.
const SOURCE = '\ufeffaddress,loan\r\n1 Main St,L-1\r\n"2 Elm St, Unit 4",L-2\r\n';

beforeEach(() => {
  // The clock only (promises and timers run as ever): the export's and the checkpoint's times are fixed.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(FIXED);
});
afterEach(() => {
  vi.useRealTimers();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
/** The bytes as text, a byte order mark shown as <BOM> (TextDecoder would drop it unseen). */
const shown = (bytes: Uint8Array | undefined) =>
  new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes).replace(/^\ufeff/, '<BOM>');

describe('an evidence packet, whole', () => {
  it('holds exactly its files, as they are, hashed, signed, and names each one changed', async () => {
    const h = db.make();
    await h.signIn(KEY);
    const session = SessionResponse.parse(await (await h.call('/api/session')).json());
    const id = await seedReview(db.database, {
      accountId: session.accountId,
      name: 'Q3 portfolio',
      columns: ['address', 'loan'],
      runs: 1,
      total: 2,
      row: (i) => ({
        address: ['1 Main St', '2 Elm St, Unit 4'][i] as string,
        cells: [
          ['1 Main St', 'L-1'],
          ['2 Elm St, Unit 4', 'L-2'],
        ][i] as string[],
        sourceRow: i + 2,
        answers: [NOT_FOUND],
      }),
    });
    const source = new TextEncoder().encode(SOURCE);
    expect(await new ReviewSources(db.database.db).put(id, 'portfolio.csv', source, FIXED)).toBe('stored');
    const decided = await h.call(`/api/reviews/${id}/decisions`, {
      method: 'POST',
      body: { rows: [0, 1], decision: 'reject', note: 'Not found' },
    });
    expect(decided.status).toBe(200);
    expect((await h.call(`/api/reviews/${id}/sign-off`, { method: 'POST', body: {} })).status).toBe(200);

    const res = await h.call(`/api/reviews/${id}/evidence.zip`);
    expect(res.status, await res.clone().text()).toBe(200);
    const zip = new Uint8Array(await res.arrayBuffer());
    const files = unzipSync(zip);
    expect(Object.keys(files)).toEqual([
      'results.csv',
      'results.json',
      'source/portfolio.csv',
      'runs.json',
      'manifest.json',
      'manifest.jws',
    ]);
    const golden = (name: string) => shown(files[name]).replaceAll(id, '<review>');
    expect(files['source/portfolio.csv']).toEqual(source);
    expect(golden('results.csv')).toMatchInlineSnapshot(`
      "<BOM>address,loan,proplens_source_row,proplens_input,proplens_outcome,proplens_matched_address,proplens_match,proplens_match_quality,proplens_match_changes,proplens_property_id,proplens_source,proplens_source_kind,proplens_confidence,proplens_last_verified,proplens_age_days,proplens_retrieved_at,proplens_account,proplens_started_by,proplens_started_by_name,proplens_street_number,proplens_street_name,proplens_unit,proplens_city,proplens_state,proplens_zip,proplens_property_type,proplens_unit_count,proplens_parcel_number,proplens_county,proplens_year_built,proplens_living_area_sqft,proplens_lot_size_sqft,proplens_bedrooms,proplens_bathrooms,proplens_assessed_value,proplens_last_sale_price,proplens_last_sale_date,proplens_error_code,proplens_error_message,proplens_reason,proplens_candidates,proplens_decision,proplens_decision_note,proplens_decided_by,proplens_decided_by_name,proplens_decided_at
      1 Main St,L-1,2,1 Main St,not_found,,,,,,,,,,,2026-11-01T09:00:00.000Z,Harbor & Vale Realty,ab12cd34,,,,,,,,,,,,,,,,,,,,,,,,reject,Not found,f2d66925,,2026-11-26T10:00:00.000Z
      "2 Elm St, Unit 4",L-2,3,"2 Elm St, Unit 4",not_found,,,,,,,,,,,2026-11-01T09:00:00.000Z,Harbor & Vale Realty,ab12cd34,,,,,,,,,,,,,,,,,,,,,,,,reject,Not found,f2d66925,,2026-11-26T10:00:00.000Z
      "
    `);
    expect(golden('results.json')).toMatchInlineSnapshot(`
      "{"review":{"id":"<review>","name":"Q3 portfolio","account":"Harbor & Vale Realty","createdAt":"2026-11-01T09:00:00.000Z","startedBy":"ab12cd34","startedByName":null,"exportedAt":"2026-11-26T10:00:00.000Z","run":1,"rows":2,"signOff":{"by":"f2d66925","at":"2026-11-26T10:00:00.000Z","run":1,"reason":null,"approved":null,"byName":null}},
      "columns":["address","loan","proplens_source_row","proplens_input","proplens_outcome","proplens_matched_address","proplens_match","proplens_match_quality","proplens_match_changes","proplens_property_id","proplens_source","proplens_source_kind","proplens_confidence","proplens_last_verified","proplens_age_days","proplens_retrieved_at","proplens_account","proplens_started_by","proplens_started_by_name","proplens_street_number","proplens_street_name","proplens_unit","proplens_city","proplens_state","proplens_zip","proplens_property_type","proplens_unit_count","proplens_parcel_number","proplens_county","proplens_year_built","proplens_living_area_sqft","proplens_lot_size_sqft","proplens_bedrooms","proplens_bathrooms","proplens_assessed_value","proplens_last_sale_price","proplens_last_sale_date","proplens_error_code","proplens_error_message","proplens_reason","proplens_candidates","proplens_decision","proplens_decision_note","proplens_decided_by","proplens_decided_by_name","proplens_decided_at"],
      "rows":[
      {"input":{"address":"1 Main St","loan":"L-1"},"proplens_source_row":2,"proplens_input":"1 Main St","proplens_outcome":"not_found","proplens_matched_address":null,"proplens_match":null,"proplens_match_quality":null,"proplens_match_changes":null,"proplens_property_id":null,"proplens_source":null,"proplens_source_kind":null,"proplens_confidence":null,"proplens_last_verified":null,"proplens_age_days":null,"proplens_retrieved_at":"2026-11-01T09:00:00.000Z","proplens_account":"Harbor & Vale Realty","proplens_started_by":"ab12cd34","proplens_started_by_name":null,"proplens_street_number":null,"proplens_street_name":null,"proplens_unit":null,"proplens_city":null,"proplens_state":null,"proplens_zip":null,"proplens_property_type":null,"proplens_unit_count":null,"proplens_parcel_number":null,"proplens_county":null,"proplens_year_built":null,"proplens_living_area_sqft":null,"proplens_lot_size_sqft":null,"proplens_bedrooms":null,"proplens_bathrooms":null,"proplens_assessed_value":null,"proplens_last_sale_price":null,"proplens_last_sale_date":null,"proplens_error_code":null,"proplens_error_message":null,"proplens_reason":null,"proplens_candidates":null,"proplens_decision":"reject","proplens_decision_note":"Not found","proplens_decided_by":"f2d66925","proplens_decided_by_name":null,"proplens_decided_at":"2026-11-26T10:00:00.000Z"},
      {"input":{"address":"2 Elm St, Unit 4","loan":"L-2"},"proplens_source_row":3,"proplens_input":"2 Elm St, Unit 4","proplens_outcome":"not_found","proplens_matched_address":null,"proplens_match":null,"proplens_match_quality":null,"proplens_match_changes":null,"proplens_property_id":null,"proplens_source":null,"proplens_source_kind":null,"proplens_confidence":null,"proplens_last_verified":null,"proplens_age_days":null,"proplens_retrieved_at":"2026-11-01T09:00:00.000Z","proplens_account":"Harbor & Vale Realty","proplens_started_by":"ab12cd34","proplens_started_by_name":null,"proplens_street_number":null,"proplens_street_name":null,"proplens_unit":null,"proplens_city":null,"proplens_state":null,"proplens_zip":null,"proplens_property_type":null,"proplens_unit_count":null,"proplens_parcel_number":null,"proplens_county":null,"proplens_year_built":null,"proplens_living_area_sqft":null,"proplens_lot_size_sqft":null,"proplens_bedrooms":null,"proplens_bathrooms":null,"proplens_assessed_value":null,"proplens_last_sale_price":null,"proplens_last_sale_date":null,"proplens_error_code":null,"proplens_error_message":null,"proplens_reason":null,"proplens_candidates":null,"proplens_decision":"reject","proplens_decision_note":"Not found","proplens_decided_by":"f2d66925","proplens_decided_by_name":null,"proplens_decided_at":"2026-11-26T10:00:00.000Z"}
      ]}
      "
    `);
    expect(golden('runs.json')).toMatchInlineSnapshot(`
      "{
        "review": "<review>",
        "runs": [
          {
            "number": 1,
            "startedAt": "2026-11-01T09:00:00.001Z",
            "finishedAt": "2026-11-01T09:00:00.002Z",
            "counts": {
              "total": 2,
              "done": 2,
              "matched": 0,
              "notFound": 0,
              "ambiguous": 0,
              "failed": 0
            }
          }
        ]
      }
      "
    `);

    // The manifest: every file's size and hash as it is; the review, its run and its sign-off of that run.
    const manifest = JSON.parse(text(files['manifest.json']));
    const stated = Object.keys(files)
      .filter((name) => !name.startsWith('manifest.'))
      .map((name) => {
        const bytes = files[name] as Uint8Array;
        return { name, bytes: bytes.length, sha256: sha256(bytes) };
      });
    expect(manifest.files).toEqual(stated);
    const dana = keyFingerprint(hashKey(KEY));
    expect(manifest).toMatchObject({
      type: 'proplens-evidence-packet',
      v: 1,
      exportedAt: '2026-11-26T10:00:00.000Z',
      proplens: { host: 'unconfigured host' },
      review: { id, name: 'Q3 portfolio', rows: 2, startedAt: '2026-11-01T09:00:00.000Z' },
      runs: [{ number: 1, startedAt: '2026-11-01T09:00:00.001Z', finishedAt: '2026-11-01T09:00:00.002Z' }],
      signOff: { by: dana, run: 1, at: '2026-11-26T10:00:00.000Z', reason: null, approved: null },
    });
    // Behind the rows: their decisions and the sign-off, each an entry of the chain, before the checkpoint.
    expect(manifest.audit.entries.map((e: { kind: string; row: number | null }) => [e.kind, e.row])).toEqual([
      ['review_row_decided', 0],
      ['review_row_decided', 1],
      ['review_signed_off', null],
    ]);
    expect(manifest.audit.checkpoint).toMatchObject({ at: '2026-11-26T10:00:00.000Z' });
    for (const e of manifest.audit.entries)
      expect(manifest.audit.checkpoint.headId).toBeGreaterThanOrEqual(e.id);

    // The JWS: signed by a key this server publishes, over manifest.json's exact bytes.
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    const verified = await compactVerify(text(files['manifest.jws']), createLocalJWKSet(jwks));
    expect(verified.protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'proplens-evidence+jws' });
    expect(verified.payload).toEqual(files['manifest.json']);
    expect((await verifyPacket(zip, jwks)).summary).toBe(
      'Verified: signed by PropLens (its host name was not configured) on 2026-11-26; 5 files, none changed',
    );

    // One byte of each file changed in turn (its middle one): verify names that file, and only it.
    const named: Record<string, string[]> = {};
    for (const [name, bytes] of Object.entries(files)) {
      const changed = new Uint8Array(bytes);
      const at = Math.floor(changed.length / 2);
      changed[at] = (changed[at] as number) ^ 0x01;
      named[name] = (await verifyPacket(zipSync({ ...files, [name]: changed }), jwks)).problems;
    }
    expect(named).toEqual({
      'results.csv': ['results.csv was changed'],
      'results.json': ['results.json was changed'],
      'source/portfolio.csv': ['source/portfolio.csv was changed'],
      'runs.json': ['runs.json was changed'],
      'manifest.json': ['manifest.json was changed'],
      'manifest.jws': [expect.stringMatching(/^Not verified: manifest\.jws /)],
    });
  });
});
