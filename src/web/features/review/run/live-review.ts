import {
  type ReviewRowResult,
  ReviewRowsEvent,
  type ReviewRowsResponse,
  ReviewSummary,
} from '../../../../contract/index.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import type { StreamEvent } from '../../../lib/event-stream.ts';
import { FIRST_PAGE, type ReviewOpening } from '../api/preload-review.ts';

export type LiveState = 'loading' | 'ready' | 'not_found' | 'error';

export interface LiveReviewSnapshot {
  state: LiveState;
  summary: ReviewSummary | null;
  /** The latest run's rows in input order; a row object is replaced (never mutated) when it changes. */
  rows: ReviewRowResult[];
  /** Rows of the latest run read so far (below the total while a big review loads). */
  loaded: number;
  /** Following the server's events (false while reconnecting). */
  live: boolean;
}

export interface LiveReviewDeps {
  getReview: (id: string, signal: AbortSignal) => Promise<ReviewSummary>;
  getRowsPage: (
    id: string,
    run: number,
    cursor: string | null,
    signal: AbortSignal,
    limit: number,
  ) => Promise<ReviewRowsResponse>;
  events: (id: string, lastEventId: string, signal: AbortSignal) => AsyncIterable<StreamEvent>;
  /** The summary and first page, asked already as the page loaded (preload-review.ts); undefined: ask. */
  opening?: Promise<ReviewOpening | undefined> | undefined;
  /** The page hears of changes at most this often (ms). */
  notifyMs?: number;
  /** Waits before reconnecting after the stream dropped (ms, doubling up to 30 s). */
  retryMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Rows read a page at a time after the first, and how many such pages are asked at once. */
const PAGE = 5_000;
const READ_AHEAD = 2;

/**
 * A row as the page keeps it. A CSV row's own cells are left out: only the server's export shows them, and a
 * 100,000-row review's page holds every row. Pages and events are read without them (`cells=0`); a fixed row's
 * answer still carries them.
 */
function withoutCells(row: ReviewRowResult): ReviewRowResult {
  if (row.cells === undefined) return row;
  const { cells: _cells, ...kept } = row;
  return kept;
}

const statusOf = (err: unknown) => (err instanceof ApiRequestError ? err.status : undefined);

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * A review kept on the server, as one page follows it: its summary and the latest run's rows, read in pages
 * and then kept current by the server's events (rows as they are answered, the summary as it moves), resuming
 * after a dropped connection from the last event seen. An external store for useSyncExternalStore.
 */
export class LiveReview {
  readonly #deps: LiveReviewDeps;
  readonly #abort = new AbortController();
  readonly #listeners = new Set<() => void>();
  #snapshot: LiveReviewSnapshot = { state: 'loading', summary: null, rows: [], loaded: 0, live: false };
  #rows: ReviewRowResult[] = [];
  /** Each shown row's sequence number: an older answer of a row never replaces a newer one. */
  #seqs: number[] = [];
  /** Rows of the run read so far (each once, whatever pages overlapped). */
  #loaded = 0;
  /** A summary heard and not shown yet: it goes with the next redraw. */
  #summary: ReviewSummary | null = null;
  /** Rows changed since the last redraw. */
  #dirty = false;
  #run = 0;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly id: string,
    deps: LiveReviewDeps,
  ) {
    this.#deps = deps;
  }

  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  getSnapshot = () => this.#snapshot;

  async start(): Promise<void> {
    const signal = this.#abort.signal;
    try {
      const opening = await this.#deps.opening;
      if (signal.aborted) return;
      const summary = opening?.summary ?? (await this.#deps.getReview(this.id, signal));
      await this.#loadRun(summary, opening?.firstPage);
    } catch (err) {
      if (!signal.aborted) this.#fail(err);
      return;
    }
    await this.#follow();
  }

  stop(): void {
    this.#abort.abort();
    if (this.#timer) clearTimeout(this.#timer);
  }

  /**
   * Reads every row of the summary's latest run: the first page (a screenful) is shown at once, with the
   * summary, then only how many are in, and every row once all are. A redraw works over every row read so far,
   * so drawing each page of a 100,000-row review as it came cost twenty redraws of up to 100,000 rows. The
   * summary waits for its first page: never a moment of the review with no rows (its figures at 0, "No rows
   * yet."), nor of a new run's summary above the previous run's rows.
   */
  async #loadRun(summary: ReviewSummary, firstPage?: ReviewRowsResponse): Promise<void> {
    const run = summary.runs.at(-1)?.number ?? 1;
    this.#run = run;
    this.#rows = [];
    this.#seqs = [];
    this.#loaded = 0;
    // What was heard of the previous run is not drawn: its summary above none of its rows (hostile review H16-6).
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#dirty = false;
    this.#summary = null;
    const first = firstPage ?? (await this.#page(run, null, FIRST_PAGE));
    if (this.#run !== run) return; // A newer run started meanwhile: its own load took over.
    this.#put(first.rows);
    // The stream resumes from where the review stood when the first page was read, not from the newest row of
    // any page: a row of the first page answered while later pages were read is sent again (hostile review
    // H16-2; a preloaded first page may be seconds old). A server that does not say: the first page's newest row.
    this.#seq = first.lastSeq ?? first.rows.reduce((most, r) => Math.max(most, r.seq), 0);
    this.#dirty = false; // the first page is drawn here, with its summary
    this.#set({ summary, state: 'ready', rows: this.#shownRows(), loaded: this.#loaded });
    if (first.nextCursor === null) return this.#notifyNow();
    // The rest in pages of PAGE rows, READ_AHEAD at a time: a cursor is a row index, so the run's total says
    // where each page starts, and the server reads one page while this page parses another (issue 26: every
    // row of 100,000 read one page after the other took 7.9 s, half of it the server's, half the page's).
    const starts: number[] = [];
    const total = summary.runs.at(-1)?.counts.total ?? 0;
    for (let after = Number(first.nextCursor); after < total - 1; after += PAGE) starts.push(after);
    let next = 0;
    // Where rows go on past the run's total (none should): read one page at a time from there.
    let beyond: string | null = starts.length === 0 ? first.nextCursor : null;
    const reader = async () => {
      while (next < starts.length && this.#run === run) {
        const i = next++;
        const page = await this.#page(run, String(starts[i]), PAGE);
        if (this.#run !== run) return;
        this.#put(page.rows);
        this.#set({ loaded: this.#loaded });
        if (i === starts.length - 1) beyond = page.nextCursor;
      }
    };
    await Promise.all(Array.from({ length: READ_AHEAD }, reader));
    while (beyond !== null && this.#run === run) {
      const page: ReviewRowsResponse = await this.#page(run, beyond, PAGE);
      if (this.#run !== run) return;
      this.#put(page.rows);
      this.#set({ loaded: this.#loaded });
      beyond = page.nextCursor;
    }
    if (this.#run === run) this.#notifyNow();
  }

  #page(run: number, cursor: string | null, limit: number): Promise<ReviewRowsResponse> {
    return this.#deps.getRowsPage(this.id, run, cursor, this.#abort.signal, limit);
  }

  async #follow(): Promise<void> {
    const signal = this.#abort.signal;
    let wait = this.#deps.retryMs ?? 1_000;
    while (!signal.aborted) {
      try {
        for await (const event of this.#deps.events(this.id, String(this.#seq), signal)) {
          if (!this.#snapshot.live) this.#set({ live: true });
          wait = this.#deps.retryMs ?? 1_000;
          if ((await this.#handle(event)) === 'gone') return;
        }
      } catch (err) {
        if (signal.aborted) return;
        const status = statusOf(err);
        if (status === 401 || status === 404) {
          this.#fail(err);
          return;
        }
      }
      if (signal.aborted) return;
      this.#set({ live: false });
      await (this.#deps.sleep ?? abortableSleep)(wait, signal);
      wait = Math.min(wait * 2, 30_000);
    }
  }

  async #handle(event: StreamEvent): Promise<'gone' | undefined> {
    if (event.id && /^\d+$/.test(event.id)) this.#seq = Math.max(this.#seq, Number(event.id));
    if (event.event === 'deleted') {
      this.#set({ state: 'not_found' });
      return 'gone';
    }
    const json: unknown = JSON.parse(event.data);
    if (event.event === 'rows') {
      const parsed = ReviewRowsEvent.safeParse(json);
      if (parsed.success) this.#apply(parsed.data.rows);
    } else if (event.event === 'summary') {
      const parsed = ReviewSummary.safeParse(json);
      if (!parsed.success) return undefined;
      const latest = parsed.data.runs.at(-1)?.number ?? 1;
      if (latest !== this.#run) await this.#loadRun(parsed.data);
      else {
        // Shown with the rows sent before it, in one redraw: never "Done" above a row still pending, and a
        // fast review's summary (one per batch of rows) costs no redraw of its own.
        this.#summary = parsed.data;
        this.#scheduleNotify();
      }
    }
    return undefined;
  }

  /**
   * Rows this page changed itself (a row fixed in place): shown at once, before the server's event says so.
   * The stream's position is left alone: rows answered meanwhile, and not yet sent, still come after a
   * reconnection.
   */
  applyRows(rows: readonly ReviewRowResult[]): void {
    this.#put(rows);
    this.#notifyNow();
  }

  /** An event's rows, kept: the stream resumes after the newest answer heard. */
  #apply(rows: readonly ReviewRowResult[]): void {
    for (const r of rows) this.#seq = Math.max(this.#seq, r.seq);
    this.#put(rows);
    this.#scheduleNotify();
  }

  #put(rows: readonly ReviewRowResult[]): void {
    if (rows.length > 0) this.#dirty = true;
    for (const r of rows) {
      const seen = this.#seqs[r.index];
      if (seen === undefined) this.#loaded++;
      else if (seen > r.seq) continue;
      this.#seqs[r.index] = r.seq;
      this.#rows[r.index] = withoutCells(r);
    }
  }

  #fail(err: unknown): void {
    const status = statusOf(err);
    this.#set({ state: status === 404 ? 'not_found' : 'error' });
  }

  #set(patch: Partial<LiveReviewSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...patch };
    this.#emit();
  }

  /**
   * Every change heard meanwhile goes to the page in one redraw, at most once per `notifyMs` (250 ms), and
   * less often as the review grows: a redraw works over every row (counters, charts, filters), so a fast
   * review of 20,000 rows redraws twice a second and one of 100,000 every 2 s, leaving the page free between.
   */
  #scheduleNotify(): void {
    if (this.#timer) return;
    const ms = Math.max(this.#deps.notifyMs ?? 250, Math.min(2_000, this.#rows.length / 50));
    this.#timer = setTimeout(() => this.#notifyNow(), ms);
  }

  #notifyNow(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const patch: Partial<LiveReviewSnapshot> = {};
    if (this.#dirty) {
      const rows = this.#shownRows();
      patch.rows = rows;
      patch.loaded = rows.length;
      this.#dirty = false;
    }
    if (this.#summary) {
      patch.summary = this.#summary;
      this.#summary = null;
    }
    if (patch.rows || patch.summary) this.#set(patch);
  }

  /** Rows come in input order, so the list is whole but for rows still loading: copied only when it has gaps. */
  #shownRows(): ReviewRowResult[] {
    return this.#rows.includes(undefined as unknown as ReviewRowResult)
      ? this.#rows.filter((r) => r !== undefined)
      : this.#rows.slice();
  }

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}
