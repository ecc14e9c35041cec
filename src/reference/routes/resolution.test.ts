import { describe, expect, it } from 'vitest';
import { createReferenceApp } from '../app.ts';
import { parseDialect } from '../dialect.ts';
import { openTestStore } from '../test-support.ts';

/** What the resolver's answers carry over HTTP: totals, confidence, ids, ZIP and ambiguous lists by cursor. */

const { store, db } = await openTestStore();
const app = createReferenceApp({ store, cursorSecret: 'test-secret' });
const headers = { Authorization: 'Bearer pi_demo_professional' };

/** Bodies are read field by field: the assertions are the schema. */
async function get(path: string, on = app): Promise<{ status: number; body: any }> {
  const res = await on.request(path, { headers });
  return { status: res.status, body: await res.json() };
}

describe('GET /properties/resolve', () => {
  it('answers ambiguous input with the first candidates, each with its confidence, and the total', async () => {
    const { status, body } = await get('/properties/resolve?address=100+Main+St');
    expect(status).toBe(409);
    expect(body.error.code).toBe('ambiguous_address');
    expect(body.error.total).toBeGreaterThan(body.error.candidates.length - 1);
    for (const c of body.error.candidates) expect(['high', 'medium', 'low']).toContain(c.confidence);
  });

  it('puts confidence on "did you mean" and unit-not-found candidates too', async () => {
    const missing = await get('/properties/resolve?address=99999+Congress+Ave,+Austin,+TX');
    expect(missing.status).toBe(404);
    expect(missing.body.error.candidates[0]).toMatchObject({ confidence: 'high' });
    const unit = await get(
      `/properties/resolve?address=${encodeURIComponent('615 Bourbon St Apt 9, New Orleans, LA')}`,
    );
    expect(unit.body.error.code).toBe('unit_not_found');
    expect(unit.body.error.building.confidence).toBeDefined();
    expect(unit.body.error.candidates).toHaveLength(4);
  });

  it("names candidates with the dialect's identifier field", async () => {
    const idApp = createReferenceApp({ store, dialect: parseDialect('id=id') });
    const { body } = await get('/properties/resolve?address=100+Main+St', idApp);
    expect(body.error.candidates[0]).toEqual({
      id: expect.stringMatching(/^pi_/),
      address: expect.any(String),
      confidence: expect.stringMatching(/^(high|medium|low)$/),
    });
  });

  it('finds the record for a property id pasted into the search box', async () => {
    const rec = db.prepare('SELECT property_id, address FROM property WHERE rid = 77').get() as {
      property_id: string;
      address: string;
    };
    const { status, body } = await get(`/properties/resolve?address=${rec.property_id}`);
    expect(status).toBe(200);
    expect(body.address).toBe(rec.address);
  });
});

describe('GET /properties/search', () => {
  /** Every page, following next_cursor. */
  async function pages(q: string, limit: number) {
    const seen: { property_id: string; address: string }[] = [];
    let cursor: string | undefined;
    do {
      const params = new URLSearchParams({ q, limit: String(limit) });
      if (cursor) params.set('cursor', cursor);
      const { status, body } = await get(`/properties/search?${params}`);
      expect(status).toBe(200);
      seen.push(...body.data);
      cursor = body.next_cursor;
    } while (cursor);
    return seen;
  }

  it('pages through every candidate of an ambiguous address, as many as the 409 counted', async () => {
    const { body } = await get('/properties/resolve?address=100+Main+St');
    const listed = await pages('100 Main St', 3);
    expect(listed).toHaveLength(body.error.total);
    expect(listed.slice(0, body.error.candidates.length).map((p) => p.address)).toEqual(
      body.error.candidates.map((c: { address: string }) => c.address),
    );
  });

  it("lists a ZIP code's properties, not house numbers that start with it", async () => {
    const zip = (db.prepare('SELECT zip FROM property WHERE rid = 300').get() as { zip: string }).zip;
    const count = (db.prepare('SELECT count(*) AS n FROM property WHERE zip = ?').get(zip) as { n: number })
      .n;
    const listed = await pages(zip, 20);
    expect(listed).toHaveLength(count);
    for (const p of listed) expect(p.address.endsWith(` ${zip}`)).toBe(true);
  });
});
