import { Hono } from 'hono';
import type { Logger } from 'pino';
import { CSV_SEPARATORS, type ReviewExportFormat, ReviewExportQuery } from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { requireSession } from '../middleware/session.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import {
  csvLine,
  type ExportLayout,
  exportFileName,
  exportLayout,
  jsonRow,
  UTF8_BOM,
} from '../reviews/export-columns.ts';
import { type ExportShape, ReviewExportRows } from '../stores/reviews/export-rows.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';

export interface ReviewExportRouteDeps {
  reviews: DurableReviews;
  sessions: SessionStore;
  logger: Logger;
  /** Rows read per database query (tests and the bench may change it). */
  pageRows?: number;
  now?: () => number;
  /** The names of the account's keys this session may read (session.ts keyNamesFor), beside the fingerprints. */
  keyNames?: (session: Session) => Promise<readonly { fingerprint: string; name: string }[]>;
}

const CONTENT_TYPE: Record<ReviewExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/**
 * GET /api/reviews/:id/export.csv and .json: every row of one run (`?run=`, default the latest), streamed a page
 * at a time from the database, so memory holds one page whatever the review's size.
 */
export function reviewExportRoutes(deps: ReviewExportRouteDeps) {
  const rows = new ReviewExportRows(deps.reviews.database.db, deps.reviews.database.dialect);
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));
  app.get('/:id/export.csv', (c) => exportReview(c, deps, rows, 'csv'));
  app.get('/:id/export.json', (c) => exportReview(c, deps, rows, 'json'));
  return app;
}

async function exportReview(
  c: AppContext,
  deps: ReviewExportRouteDeps,
  rows: ReviewExportRows,
  format: ReviewExportFormat,
) {
  const parsed = ReviewExportQuery.safeParse(c.req.query());
  if (!parsed.success)
    throw new ApiError(400, 'bad_request', parsed.error.issues[0]?.message ?? 'Bad export request.');
  const now = new Date((deps.now ?? Date.now)());
  const today = parsed.data.today ?? now.toISOString().slice(0, 10);
  const session = c.get('session');
  const shape = await inDatabase(async () => {
    const review = await deps.reviews.store.summary(session.accountId, c.req.param('id') as string);
    return review ? rows.shape(review, parsed.data.run) : undefined;
  });
  if (!shape) throw new ApiError(404, 'not_found', 'There is no such review or run in this account.');
  const names = new Map((await deps.keyNames?.(session))?.map((k) => [k.fingerprint, k.name] as const));
  const nameOf = (fingerprint: string) => names.get(fingerprint) ?? null;
  const layout = exportLayout(
    {
      header: shape.review.columns,
      otherKeys: shape.otherKeys,
      checkedAgain: shape.run > 1,
      anyFixed: shape.anyFixed,
      anyExcluded: shape.anyExcluded,
      anyDecided: shape.anyDecided,
    },
    { accountName: session.account.name, today, startedBy: shape.review.createdBy, nameOf },
  );
  c.header('Content-Type', CONTENT_TYPE[format]);
  c.header(
    'Content-Disposition',
    `attachment; filename="${exportFileName(shape.review.name, format, today)}"`,
  );
  const pages = rows.rows(shape.review.id, shape.run, deps.pageRows);
  const text =
    format === 'csv'
      ? csvText(layout, pages, CSV_SEPARATORS[parsed.data.separator ?? 'comma'])
      : jsonText(layout, pages, { ...shape, accountName: session.account.name, exportedAt: now, nameOf });
  return c.body(
    pulled(text, (err) =>
      deps.logger.error(
        { requestId: c.get('requestId'), err: { name: err.name, message: err.message } },
        'review export failed',
      ),
    ),
  );
}

type Pages = ReturnType<ReviewExportRows['rows']>;

/**
 * The text as a body read at the reader's pace: a page is read from the database only when the last one has
 * been taken (a slow client holds one page, not the review). An error cuts the download, so a file never ends
 * looking whole; a client that goes away stops the reads.
 *
 * A page comes as its lines, each written into one buffer (UTF-8, as TextEncoder would): joining a page first
 * and encoding the joined text cost ten times as much (the joined page is one rope to flatten, and a single
 * character beyond Latin-1 anywhere makes all of it two bytes a character).
 */
function pulled(text: AsyncGenerator<string[]>, onError: (err: Error) => void): ReadableStream<Uint8Array> {
  let scratch = Buffer.alloc(0);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await text.next();
          if (next.done) {
            controller.close();
            return;
          }
          let most = 0;
          for (const part of next.value) most += part.length * 3;
          if (scratch.length < most) scratch = Buffer.allocUnsafe(most);
          let used = 0;
          for (const part of next.value) used += scratch.write(part, used);
          // A copy of what was written: the scratch buffer is written again for the next page.
          controller.enqueue(new Uint8Array(scratch.subarray(0, used)));
        } catch (err) {
          onError(err as Error);
          controller.error(err);
        }
      },
      async cancel() {
        await text.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The header line, then a page of rows at a time, each page as its lines and line breaks. */
async function* csvText(layout: ExportLayout, pages: Pages, separator: ',' | ';'): AsyncGenerator<string[]> {
  yield [UTF8_BOM, csvLine(layout.columns, separator), '\r\n'];
  for await (const page of pages) {
    const parts: string[] = [];
    for (const row of page) parts.push(csvLine(layout.values(row), separator), '\r\n');
    yield parts;
  }
}

/** The review's facts first (what was exported, when and by whom), then the columns, then one row a line. */
async function* jsonText(
  layout: ExportLayout,
  pages: Pages,
  about: ExportShape & {
    accountName: string;
    exportedAt: Date;
    nameOf: (fingerprint: string) => string | null;
  },
): AsyncGenerator<string[]> {
  const { signOff } = about.review;
  const review = {
    id: about.review.id,
    name: about.review.name,
    account: about.accountName,
    createdAt: about.review.createdAt,
    startedBy: about.review.createdBy,
    startedByName: about.nameOf(about.review.createdBy),
    exportedAt: about.exportedAt.toISOString(),
    run: about.run,
    rows: about.review.receivedRows,
    // Who signed it off and who approved it (issue 30), by key and name; null while it is not signed off.
    signOff: signOff
      ? {
          ...signOff,
          byName: about.nameOf(signOff.by),
          approved: signOff.approved && { ...signOff.approved, byName: about.nameOf(signOff.approved.by) },
        }
      : null,
  };
  yield [`{"review":${JSON.stringify(review)},\n"columns":${JSON.stringify(layout.columns)},\n"rows":[`];
  let separator = '\n';
  for await (const page of pages) {
    const parts: string[] = [];
    for (const row of page) {
      parts.push(separator, jsonRow(layout, layout.values(row)));
      separator = ',\n';
    }
    yield parts;
  }
  yield ['\n]}\n'];
}
