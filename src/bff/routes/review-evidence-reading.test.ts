import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyPacket } from '../../evidence-verify/packet.ts';
import { EVIDENCE_KEYS_PATH } from '../evidence/keys-route.ts';
import { PACKET_PACE_MS, packetBody } from '../evidence/packet-body.ts';
import { SqlAuditStore } from '../stores/audit/audit-store.ts';
import { ReviewExportRows } from '../stores/reviews/export-rows.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { finishedReview, rowsOf } from '../test-support/review-api.ts';
import { type Harness, reviewDatabase } from '../test-support/review-database.ts';

/*
 * The evidence packet as it is read (ADR 014, issue 26 addendum; hostile review H21): made at the reader's pace, a
 * packet holds its place among those being built until it ends, so every way it can end frees it; a reader too
 * slow is cut; a review changed while its packet is read gets no signed packet of two moments.
 */

const db = reviewDatabase('review-evidence-reading');
// A database of its own: its evidence key has signed nothing yet (the packets above register this file's).
const unsigned = reviewDatabase('review-evidence-first-packet');
const timers = () =>
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const packetOf = (h: Harness, id: string, init?: { method?: string; headers?: Record<string, string> }) =>
  h.call(`/api/reviews/${id}/evidence.zip`, init);

/** The first chunk, then `between`, then the rest: the whole, or the error the download ended with. */
async function readAround(res: Response, between: () => Promise<void>) {
  const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const parts = [(await reader.read()).value as Uint8Array];
  await between();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  } catch (err) {
    return { error: err as Error };
  }
  return { zip: new Uint8Array(Buffer.concat(parts)) };
}

describe('an evidence packet as it is read', () => {
  it('answers HEAD with the headers alone, building nothing and holding no place', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    for (let i = 0; i < 3; i++) {
      const head = await packetOf(h, review.id, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('application/zip');
      expect(head.headers.get('content-disposition')).toMatch(/\.evidence\.zip"$/);
    }
    // Hono answers HEAD with GET's route and drops its body unread: had they built, these would be 429.
    const both = await Promise.all([packetOf(h, review.id), packetOf(h, review.id)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    await Promise.all(both.map((r) => r.arrayBuffer()));
  });

  it('frees the place of an answer nobody reads once PACKET_PACE_MS has passed', async () => {
    const h = db.make({ evidenceRowsAtOnce: 1 });
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    timers();
    const dropped = await packetOf(h, review.id);
    expect(dropped.status).toBe(200);
    expect((await packetOf(h, review.id)).status).toBe(429);
    await vi.advanceTimersByTimeAsync(PACKET_PACE_MS);
    const next = await packetOf(h, review.id);
    expect(next.status).toBe(200);
    expect(Object.keys(unzipSync(new Uint8Array(await next.arrayBuffer())))).toContain('manifest.jws');
  });

  it('hands a large packet over 64 KB at a time: a steady 150 KB/s reader gets it whole, uncut', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    const { account_id } = await db.database.db
      .selectFrom('reviews')
      .select('account_id')
      .where('id', '=', review.id)
      .executeTakeFirstOrThrow();
    // 100,000 entries behind its rows: the manifest and its JWS end the packet with about 11 MB.
    const store = new SqlAuditStore(db.database.db, db.database.sqlite);
    for (let at = 0; at < 100_000; at += 10_000)
      await store.append(
        Array.from({ length: 10_000 }, (_, i) =>
          auditEntry({ account_id, kind: 'review_row', review_id: review.id, row_index: at + i }),
        ),
      );
    timers();
    const res = await packetOf(h, review.id);
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const parts: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      parts.push(next.value);
      await vi.advanceTimersByTimeAsync(Math.ceil((next.value.length / 150_000) * 1000));
    }
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
    expect(parts.reduce((n, p) => n + p.length, 0)).toBeGreaterThan(3_000_000);
    expect(Object.keys(unzipSync(new Uint8Array(Buffer.concat(parts))))).toContain('manifest.jws');
  }, 60_000);

  it('cuts a reader that takes less than a megabyte in a minute, and frees its place', async () => {
    const h = db.make({ evidenceRowsAtOnce: 1 });
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    timers();
    const res = await packetOf(h, review.id);
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    await reader.read();
    await vi.advanceTimersByTimeAsync(PACKET_PACE_MS - 1_000);
    expect((await packetOf(h, review.id)).status).toBe(429);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(reader.read()).rejects.toThrow(/took less of the evidence packet than it must in a minute/);
    expect((await packetOf(h, review.id)).status).toBe(200);
  });

  it('frees the place of a reader gone while a chunk is made, and logs no failure', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St', '2 Oak Ave']);
    for (let i = 0; i < 2; i++) {
      const reader = (
        await packetOf(h, review.id)
      ).body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
      const making = reader.read();
      // Resolves once the chunk under way is made: the packet's end waits for it.
      await reader.cancel();
      await making;
    }
    const next = await packetOf(h, review.id);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
    expect(h.logs.filter((l) => l.includes('evidence packet failed'))).toEqual([]);
  });

  it('verifies when it is the first thing its key signs (the key is registered before the packet is dated)', async () => {
    const h = unsigned.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St']);
    const zip = new Uint8Array(await (await packetOf(h, review.id)).arrayBuffer());
    // The JWKS after the packet, as an auditor fetches it to check one.
    const jwks = await (await h.call(EVIDENCE_KEYS_PATH)).json();
    expect((await verifyPacket(zip, jwks)).summary).toMatch(/^Verified: /);
  });

  it('is cut, unsigned, when a decision changes while it is read; asked again, its CSV and JSON agree', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St', '2 Oak Ave']);
    const decide = (decision: string) =>
      h.call(`/api/reviews/${review.id}/rows/0/decision`, { method: 'PUT', body: { decision, note: 'n' } });
    expect((await decide('accept')).status).toBe(200);
    const torn = await readAround(await packetOf(h, review.id), async () => {
      expect((await decide('follow_up')).status).toBe(200);
    });
    expect(torn.error?.message).toBe('the review changed while its evidence packet was read');
    expect(h.logs.some((l) => l.includes('evidence packet cut: the review changed while it was read'))).toBe(
      true,
    );
    const zip = new Uint8Array(await (await packetOf(h, review.id)).arrayBuffer());
    const files = unzipSync(zip);
    expect(new TextDecoder().decode(files['results.csv'])).toMatch(/follow.?up/i);
    expect(new TextDecoder().decode(files['results.json'])).toContain('follow_up');
    expect((await verifyPacket(zip, await (await h.call(EVIDENCE_KEYS_PATH)).json())).ok).toBe(true);
  });

  it('is cut, unsigned, when its review is deleted while it is read', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1 Main St', '2 Oak Ave']);
    const torn = await readAround(await packetOf(h, review.id), async () => {
      expect((await h.call(`/api/reviews/${review.id}`, { method: 'DELETE' })).status).toBe(204);
    });
    expect(torn.error?.message).toBe('the review changed while its evidence packet was read');
  });

  it('states a sign-off as the JSON export does, whatever its reason and the review’s name hold', async () => {
    const h = db.make();
    await h.signIn();
    // The manifest reads them from the export's first line: text that looks like its end must not end it.
    const name = 'Q3 "tape" ,"columns": 𝔘𝔫𝔦 ☃ \\ }';
    const review = await finishedReview(h, ['1 Main St'], { name });
    const reason = 'x",\n"columns":["a"],\n"rows":[\r\n} \u2028 𝔘𝔫𝔦 "\\"';
    expect(
      (await h.call(`/api/reviews/${review.id}/sign-off`, { method: 'POST', body: { reason } })).status,
    ).toBe(200);
    const zip = new Uint8Array(await (await packetOf(h, review.id)).arrayBuffer());
    const verdict = await verifyPacket(zip, await (await h.call(EVIDENCE_KEYS_PATH)).json());
    expect(verdict.ok, verdict.summary).toBe(true);
    const json = JSON.parse(new TextDecoder().decode(unzipSync(zip)['results.json'])).review;
    expect(verdict.manifest?.signOff).toEqual(json.signOff);
    expect(json.signOff.reason).toBe(reason.trim());
    expect(json.name).toBe(name);
  });

  it('does not charge the server’s time to the reader: a first chunk made in over a minute is not a slow reader', async () => {
    timers();
    async function* slowServer(): AsyncGenerator<Uint8Array, void> {
      // The entries behind a large review's rows, a checkpoint over a large trail on PostgreSQL.
      await new Promise((r) => setTimeout(r, PACKET_PACE_MS + 5_000));
      yield new Uint8Array(2 * 1024 * 1024);
    }
    const reader = packetBody(slowServer(), () => {}, { failed: () => {}, torn: () => {} }).getReader();
    // Asked at once, and waiting all along.
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(PACKET_PACE_MS + 5_000);
    await expect(first).resolves.toMatchObject({ done: false });
    await reader.cancel();
  });

  it('cuts a reader that was quick for a minute, then took too little in the next', async () => {
    timers();
    async function* endless(): AsyncGenerator<Uint8Array, void> {
      for (;;) yield new Uint8Array(64 * 1024);
    }
    const ended = vi.fn();
    const reader = packetBody(endless(), ended, { failed: () => {}, torn: () => {} }).getReader();
    // 2 MB in the first minute: enough.
    for (let i = 0; i < 32; i++) await reader.read();
    await vi.advanceTimersByTimeAsync(PACKET_PACE_MS);
    expect(ended).not.toHaveBeenCalled();
    // Then 64 KB in the next.
    await reader.read();
    await vi.advanceTimersByTimeAsync(PACKET_PACE_MS);
    expect(ended).toHaveBeenCalledOnce();
    await expect(reader.read()).rejects.toThrow(/took less of the evidence packet/);
  });

  it('is cut, unsigned, when a row fix lands while it is read (the fix’s entry is committed with the fix)', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['100 Main St', '1100 Congress Ave, Austin, TX 78701']);
    const [row] = await rowsOf(h, review.id);
    const [first, second] = row?.candidates ?? [];
    if (!first || !second) throw new Error('the ambiguous row has two candidates');
    const fix = (to: { address: string; id: string }) =>
      h.call(`/api/reviews/${review.id}/rows/0/fix`, {
        method: 'POST',
        body: { address: to.address, candidateId: to.id },
      });
    expect((await fix(first)).status).toBe(200);
    // The second fix has made its lookup; its transaction is slow to come (on PostgreSQL, behind the review's
    // row lock), and lands once the CSV has passed, before the JSON's rows are read.
    const store = h.reviews?.store as NonNullable<Harness['reviews']>['store'];
    const write = store.fixRow.bind(store);
    let release = () => {};
    const gate = new Promise<void>((go) => {
      release = go;
    });
    const gated = vi.spyOn(store, 'fixRow').mockImplementation(async (...args) => {
      await gate;
      return write(...args);
    });
    const fixing = fix(second);
    await vi.waitFor(() => expect(gated).toHaveBeenCalled());
    const pagesOf = ReviewExportRows.prototype.rows;
    let exports = 0;
    vi.spyOn(ReviewExportRows.prototype, 'rows').mockImplementation(function (
      this: ReviewExportRows,
      ...args: Parameters<typeof pagesOf>
    ) {
      const pages = pagesOf.apply(this, args);
      if (++exports !== 2) return pages;
      return (async function* () {
        release();
        expect((await fixing).status).toBe(200);
        yield* pages;
      })();
    });
    const res = await packetOf(h, review.id);
    await expect(res.arrayBuffer()).rejects.toThrow('the review changed while its evidence packet was read');
  });

  it('is cut, unsigned, when a key is renamed between its two exports (the names they print)', async () => {
    const h = db.make();
    await h.call('/api/session', {
      method: 'POST',
      body: { apiKey: 'pi_demo_professional', name: 'Dana Ortiz' },
    });
    const review = await finishedReview(h, ['1100 Congress Ave, Austin, TX 78701']);
    const shapeOf = ReviewExportRows.prototype.shape;
    let shapes = 0;
    vi.spyOn(ReviewExportRows.prototype, 'shape').mockImplementation(async function (
      this: ReviewExportRows,
      ...args: Parameters<typeof shapeOf>
    ) {
      const shape = await shapeOf.apply(this, args);
      if (++shapes === 2)
        expect((await h.call('/api/session/name', { method: 'PUT', body: { name: 'Dana O.' } })).status).toBe(
          200,
        );
      return shape;
    });
    const res = await packetOf(h, review.id);
    await expect(res.arrayBuffer()).rejects.toThrow('the review changed while its evidence packet was read');
  });

  it('is cut, unsigned, when the review is checked again while it is read', async () => {
    const h = db.make();
    await h.signIn();
    const review = await finishedReview(h, ['1100 Congress Ave, Austin, TX 78701']);
    const torn = await readAround(await packetOf(h, review.id), async () => {
      expect((await h.call(`/api/reviews/${review.id}/runs`, { method: 'POST' })).status).toBe(201);
    });
    expect(torn.error?.message).toBe('the review changed while its evidence packet was read');
  });
});
