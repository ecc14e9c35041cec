import {
  type CreateReviewRequest,
  MAX_CELL_LENGTH,
  MAX_CHUNK_ROWS,
  MAX_PARCEL_LENGTH,
  MAX_REVIEW_BYTES,
  type ReviewChunkRequest,
  type ReviewInputRow,
  type ReviewSummary,
} from '../../../../contract/index.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import type { Draft } from './draft.ts';

/** What a review is started with: the review as it is created, and its rows as the server keeps them. */
export type ReviewUpload = Pick<CreateReviewRequest, 'name' | 'kind' | 'origin' | 'columns'> & {
  rows: ReviewInputRow[];
  skippedBlank: number;
  /** The file the rows were read from, sent as it is for the review's evidence packet. */
  source?: File;
};

export interface UploadDeps {
  create: (request: CreateReviewRequest) => Promise<ReviewSummary>;
  put: (id: string, chunk: ReviewChunkRequest, signal?: AbortSignal) => Promise<ReviewSummary>;
  /** Sends the file a review was read from (its evidence packet carries it byte for byte). */
  putSource?: (id: string, file: File, signal?: AbortSignal) => Promise<unknown>;
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  /** A new random id per start click. */
  token?: () => string;
}

/** About 1 MB of JSON a chunk at most, whatever the rows hold (the BFF refuses a body over 1.5 MB). */
const CHUNK_BYTES = 1_000_000;
const ATTEMPTS = 4;

const cut = (text: string) => (text.length > MAX_CELL_LENGTH ? text.slice(0, MAX_CELL_LENGTH) : text);

/** The rows of a draft (paste, file, area) as the server takes them. */
export function toUpload(draft: Draft, name: string): ReviewUpload {
  const origin = draft.origin !== undefined ? { origin: draft.origin } : {};
  if (draft.kind === 'area') {
    return {
      name,
      kind: 'area',
      ...origin,
      columns: [],
      skippedBlank: 0,
      // Each record's address, looked up on the server like any row: only the BFF's own lookups answer a row.
      rows: draft.records.map((property) => ({ address: cut(property.address) })),
    };
  }
  const { prepared } = draft;
  return {
    name,
    kind: draft.kind,
    ...origin,
    ...(draft.file ? { source: draft.file } : {}),
    columns: (prepared.columns ?? []).map(cut),
    skippedBlank: prepared.skippedBlank,
    // A row refused here (not an address, too long) goes as it is: the BFF refuses it the same way, with no
    // lookup, and keeps the reason as the row's answer.
    rows: prepared.rows.map((r) => ({
      address: cut(r.input),
      ...(r.cells ? { cells: r.cells.map(cut) } : {}),
      ...(r.sourceRow !== undefined ? { sourceRow: r.sourceRow } : {}),
      ...(r.parcel ? { parcel: r.parcel.slice(0, MAX_PARCEL_LENGTH) } : {}),
    })),
  };
}

/** Splits rows into chunks of at most MAX_CHUNK_ROWS rows and about CHUNK_BYTES of JSON. */
export function chunksOf(rows: readonly ReviewInputRow[]): { firstRow: number; rows: ReviewInputRow[] }[] {
  const chunks: { firstRow: number; rows: ReviewInputRow[] }[] = [];
  let current: ReviewInputRow[] = [];
  let bytes = 0;
  let firstRow = 0;
  rows.forEach((row, i) => {
    const size = JSON.stringify(row).length + 1;
    if (current.length > 0 && (current.length >= MAX_CHUNK_ROWS || bytes + size > CHUNK_BYTES)) {
      chunks.push({ firstRow, rows: current });
      current = [];
      bytes = 0;
      firstRow = i;
    }
    current.push(row);
    bytes += size;
  });
  if (current.length > 0) chunks.push({ firstRow, rows: current });
  return chunks;
}

const worthRetrying = (err: unknown) =>
  err instanceof ApiRequestError &&
  (err.code === 'offline' || err.status >= 500 || err.status === 429 || err.code === 'bad_response');

/**
 * Creates the review and sends its rows in chunks, each retried with back-off when the connection or the
 * server fails (a chunk sent twice is taken once), reporting progress. Resolves with the review once every
 * row is in; rejects with the last error when a chunk cannot be sent, the input left as it was.
 */
export async function uploadReview(upload: ReviewUpload, deps: UploadDeps): Promise<ReviewSummary> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retrying = async <T>(work: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (attempt >= ATTEMPTS || !worthRetrying(err) || deps.signal?.aborted) throw err;
        await sleep(1_000 * 2 ** (attempt - 1));
      }
    }
  };
  const clientToken = (deps.token ?? randomToken)();
  let summary = await retrying(() =>
    deps.create({
      clientToken,
      name: upload.name,
      kind: upload.kind,
      ...(upload.origin ? { origin: upload.origin.slice(0, 300) } : {}),
      columns: upload.columns,
      totalRows: upload.rows.length,
      skippedBlank: upload.skippedBlank,
    }),
  );
  // The file as chosen, before its rows: a review that runs has its file kept (sent again, it is taken once).
  const { source } = upload;
  if (source && deps.putSource && source.size <= MAX_REVIEW_BYTES) {
    const putSource = deps.putSource;
    try {
      await retrying(() => putSource(summary.id, source, deps.signal));
    } catch (err) {
      // Refused on its own merits (larger than its rows explain, past the account's share: 413, 409): the rows
      // still go, and the review runs; only its evidence packet goes without the file. Anything else (offline,
      // the server away after every retry, a cancel) stops the upload as a chunk's failure would.
      if (deps.signal?.aborted || !(err instanceof ApiRequestError) || worthRetrying(err)) throw err;
    }
  }
  const chunks = chunksOf(upload.rows);
  let sent = 0;
  deps.onProgress?.(0, upload.rows.length);
  for (const [index, chunk] of chunks.entries()) {
    const last = index === chunks.length - 1;
    summary = await retrying(() =>
      deps.put(summary.id, { index, firstRow: chunk.firstRow, rows: chunk.rows, last }, deps.signal),
    );
    sent += chunk.rows.length;
    deps.onProgress?.(sent, upload.rows.length);
  }
  return summary;
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
