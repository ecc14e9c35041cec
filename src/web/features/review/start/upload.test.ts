import { describe, expect, it } from 'vitest';
import {
  type CreateReviewRequest,
  MAX_REVIEW_BYTES,
  type ReviewChunkRequest,
  type ReviewInputRow,
  type ReviewSummary,
} from '../../../../contract/index.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { chunksOf, toUpload, uploadReview } from './upload.ts';

const summary = (over: Partial<ReviewSummary> = {}): ReviewSummary => ({
  id: 'rv_1',
  name: 'R',
  kind: 'paste',
  origin: null,
  createdBy: 'fp',
  createdAt: '2026-11-24T00:00:00Z',
  status: 'uploading',
  columns: [],
  totalRows: 0,
  receivedRows: 0,
  skippedBlank: 0,
  runs: [],
  ...over,
});
const rows = (n: number, size = 10): ReviewInputRow[] =>
  Array.from({ length: n }, (_, i) => ({ address: `${i} ${'x'.repeat(size)}` }));

describe('chunksOf', () => {
  it('cuts at 2,000 rows and at about 1 MB, keeping every row once and in order', () => {
    const many = chunksOf(rows(4_500));
    expect(many.map((c) => [c.firstRow, c.rows.length])).toEqual([
      [0, 2000],
      [2000, 2000],
      [4000, 500],
    ]);
    const wide = chunksOf(rows(1_000, 1_900));
    expect(wide.length).toBeGreaterThan(1);
    for (const c of wide) expect(JSON.stringify(c.rows).length).toBeLessThan(1_100_000);
    expect(wide.flatMap((c) => c.rows)).toEqual(rows(1_000, 1_900));
  });
});

describe('uploadReview', () => {
  it('creates the review once, sends each chunk, retries a failed chunk with the same index, and reports progress', async () => {
    const creates: CreateReviewRequest[] = [];
    const puts: ReviewChunkRequest[] = [];
    let failOnce = true;
    const progress: number[] = [];
    const waits: number[] = [];
    const done = await uploadReview(
      { name: 'R', kind: 'paste', columns: [], rows: rows(4_100), skippedBlank: 2 },
      {
        create: async (r) => {
          creates.push(r);
          return summary({ totalRows: r.totalRows });
        },
        put: async (_id, chunk) => {
          puts.push(chunk);
          if (chunk.index === 1 && failOnce) {
            failOnce = false;
            throw new ApiRequestError(0, 'offline', 'offline');
          }
          return summary({ status: chunk.last ? 'running' : 'uploading' });
        },
        onProgress: (sent) => progress.push(sent),
        sleep: async (ms) => {
          waits.push(ms);
        },
        token: () => 'token-123456',
      },
    );
    expect(done.status).toBe('running');
    expect(creates).toEqual([
      expect.objectContaining({ clientToken: 'token-123456', totalRows: 4_100, skippedBlank: 2 }),
    ]);
    expect(puts.map((p) => [p.index, p.firstRow, p.last])).toEqual([
      [0, 0, false],
      [1, 2000, false],
      [1, 2000, false],
      [2, 4000, true],
    ]);
    expect(waits).toEqual([1_000]);
    expect(progress).toEqual([0, 2000, 4000, 4100]);
  });

  it('gives up on a refusal at once, and on a failing server after four tries', async () => {
    const refused = uploadReview(
      { name: 'R', kind: 'paste', columns: [], rows: rows(3), skippedBlank: 0 },
      {
        create: async () => {
          throw new ApiRequestError(400, 'bad_request', 'At most 100000 rows.');
        },
        put: async () => summary(),
        sleep: async () => {},
      },
    );
    await expect(refused).rejects.toThrow('At most 100000 rows.');
    let tries = 0;
    const down = uploadReview(
      { name: 'R', kind: 'paste', columns: [], rows: rows(3), skippedBlank: 0 },
      {
        create: async () => summary(),
        put: async () => {
          tries++;
          throw new ApiRequestError(503, 'store_unavailable', 'Briefly unavailable.');
        },
        sleep: async () => {},
      },
    );
    await expect(down).rejects.toThrow('Briefly unavailable.');
    expect(tries).toBe(4);
  });
});

describe('the file a review was read from', () => {
  it('is sent as it is, after the review is made and before its rows, retried like a chunk', async () => {
    const calls: string[] = [];
    const file = new File(['Address\n1 Main St\n'], 'loans.csv', { type: 'text/csv' });
    let failOnce = true;
    await uploadReview(
      { name: 'R', kind: 'csv', columns: ['Address'], rows: rows(3), skippedBlank: 0, source: file },
      {
        create: async () => {
          calls.push('create');
          return summary();
        },
        putSource: async (id, sent) => {
          calls.push(`source ${id} ${sent.name} ${await sent.text()}`);
          if (failOnce) {
            failOnce = false;
            throw new ApiRequestError(503, 'upstream_unavailable', 'try again');
          }
        },
        put: async (_id, chunk) => {
          calls.push(`chunk ${chunk.index}`);
          return summary();
        },
        sleep: async () => {},
      },
    );
    expect(calls).toEqual([
      'create',
      'source rv_1 loans.csv Address\n1 Main St\n',
      'source rv_1 loans.csv Address\n1 Main St\n',
      'chunk 0',
    ]);
  });

  it('refused by the server (too large for its rows, past the account’s share), the rows still go', async () => {
    const calls: string[] = [];
    const file = new File(['Address\n1 Main St\n'], 'loans.csv', { type: 'text/csv' });
    for (const [status, code] of [
      [413, 'payload_too_large'],
      [409, 'quota_exceeded'],
    ] as const) {
      calls.length = 0;
      await uploadReview(
        { name: 'R', kind: 'csv', columns: ['Address'], rows: rows(3), skippedBlank: 0, source: file },
        {
          create: async () => summary(),
          putSource: async () => {
            calls.push('source');
            throw new ApiRequestError(status, code, 'not kept');
          },
          put: async (_id, chunk) => {
            calls.push(`chunk ${chunk.index}`);
            return summary();
          },
          sleep: async () => {},
        },
      );
      expect(calls, String(status)).toEqual(['source', 'chunk 0']);
    }
  });

  it('is not sent for a paste, nor when it is over the review size limit', async () => {
    const sent: string[] = [];
    const deps = {
      create: async () => summary(),
      put: async () => summary(),
      putSource: async (_id: string, f: File) => void sent.push(f.name),
    };
    await uploadReview({ name: 'R', kind: 'paste', columns: [], rows: rows(2), skippedBlank: 0 }, deps);
    const huge = new File([new Uint8Array(MAX_REVIEW_BYTES + 1)], 'huge.csv');
    await uploadReview(
      { name: 'R', kind: 'csv', columns: [], rows: rows(2), skippedBlank: 0, source: huge },
      deps,
    );
    expect(sent).toEqual([]);
  });
});

describe('toUpload', () => {
  it('keeps a CSV row’s cells, row number, parcel and header, and sends a refused or empty row as it is', () => {
    const upload = toUpload(
      {
        kind: 'csv',
        origin: 'loans.csv',
        defaultName: 'loans',
        prepared: {
          columns: ['loan_id', 'address'],
          skippedBlank: 1,
          refused: 1,
          duplicates: 0,
          byParcel: 1,
          noAddress: 1,
          rows: [
            { index: 0, input: '1 Main St', cells: ['L1', '1 Main St'], sourceRow: 2, outcome: 'pending' },
            {
              index: 1,
              input: 'https://example.com',
              cells: ['L2', 'https://example.com'],
              sourceRow: 4,
              outcome: 'failed',
              error: { code: 'bad_request', message: 'A web link' },
            },
            { index: 2, input: '', cells: ['L3', ''], sourceRow: 5, parcel: '0123-45', outcome: 'pending' },
            {
              index: 3,
              input: '',
              cells: ['L4', ''],
              sourceRow: 6,
              outcome: 'failed',
              error: { code: 'no_address', message: 'No address' },
            },
          ],
        },
      },
      'Loans',
    );
    expect(upload).toEqual({
      name: 'Loans',
      kind: 'csv',
      origin: 'loans.csv',
      columns: ['loan_id', 'address'],
      skippedBlank: 1,
      rows: [
        { address: '1 Main St', cells: ['L1', '1 Main St'], sourceRow: 2 },
        // The BFF refuses it the same way, without a lookup: only the server answers a row.
        { address: 'https://example.com', cells: ['L2', 'https://example.com'], sourceRow: 4 },
        // Rows without an address go too, with their row number: the export joins back to the file 1:1.
        { address: '', cells: ['L3', ''], sourceRow: 5, parcel: '0123-45' },
        { address: '', cells: ['L4', ''], sourceRow: 6 },
      ],
    });
  });
});
