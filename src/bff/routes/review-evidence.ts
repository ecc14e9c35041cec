import { isIP } from 'node:net';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ReviewExportQuery, type ReviewSummary } from '../../contract/index.ts';
import { type PacketSignOff, UNCONFIGURED_HOST } from '../../evidence-verify/packet.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { EvidencePackets } from '../evidence/packet.ts';
import { chunksOf, JsonHead, packetBody } from '../evidence/packet-body.ts';
import {
  DEFAULT_MAX_SOURCE_BYTES,
  ReviewSources,
  sourceFileName,
  sourceLimit,
} from '../evidence/packet-source.ts';
import { requireSession } from '../middleware/session.ts';
import { exportFileName } from '../reviews/export-columns.ts';
import { keyFingerprint } from '../stores/sessions/types.ts';
import { type ReviewExportRouteDeps, reviewExportRoutes } from './review-export.ts';

export interface ReviewEvidenceRouteDeps extends ReviewExportRouteDeps {
  packets: EvidencePackets;
  /** Commits the audit entries still buffered, so the packet's checkpoint and entries include them. */
  flushAudit?: () => Promise<void>;
  /** REVIEW_MAX_SOURCE_BYTES: the bytes of source files one account keeps (default 1 GB). */
  reviewMaxSourceBytes?: number;
  /** ALLOWED_HOSTS: the names a packet may say it was exported at (packetHost). */
  allowedHosts?: readonly string[];
  /** EVIDENCE_ROWS_AT_ONCE: the rows of the packets built at once on this replica (default PACKET_ROWS_AT_ONCE). */
  packetRowsAtOnce?: number;
}

/**
 * GET /api/reviews/:id/evidence.zip (any key of the account): the finished review's signed evidence packet
 * (evidence/packet.ts), named after the review. PUT /api/reviews/:id/source?name=: the file a review was made
 * from, its raw bytes, sent once by the key that created it while the review receives its rows (before its first
 * run starts), at most sourceLimit(rows); the packet carries it as `source/<name>`, and says when it came.
 */
export function reviewEvidenceRoutes(deps: ReviewEvidenceRouteDeps) {
  // results.csv and results.json are the exports themselves, asked of the export routes with this session, so
  // the packet holds exactly what Export CSV and Export JSON download.
  const exports = reviewExportRoutes(deps);
  const app = new Hono<AppEnv>();
  const sources = new ReviewSources(deps.reviews.database.db);
  app.use('*', requireSession(deps.sessions));
  app.put('/:id/source', (c) => putSource(c, deps, sources));
  const building = new Map<string, number>();
  // Rows of the packets under way on this replica, every account's together (PACKET_ROWS_AT_ONCE).
  let rowsBuilding = 0;
  const rowsAtOnce = deps.packetRowsAtOnce ?? PACKET_ROWS_AT_ONCE;
  app.get('/:id/evidence.zip', async (c) => {
    // The reader's day, as Export CSV and Export JSON take it: the packet's exports count ages to it, and its name
    // carries it, so a reader's three files sort together (UTC's day otherwise, as theirs).
    const day = ReviewExportQuery.safeParse(c.req.query());
    if (!day.success)
      throw new ApiError(400, 'bad_request', day.error.issues[0]?.message ?? 'Bad evidence request.');
    const account = c.get('session').accountId;
    const review = await inDatabase(() => deps.reviews.store.summary(account, c.req.param('id') as string));
    if (!review) throw new ApiError(404, 'not_found', 'There is no such review in this account.');
    if (!review.runs.at(-1)?.finishedAt)
      throw new ApiError(
        409,
        'conflict',
        'The review is still running: export its evidence once it is done.',
      );
    // HEAD (which Hono answers with GET's route, its body dropped unread): the headers, and nothing built.
    if (c.req.method === 'HEAD') {
      packetHeaders(c, deps, review, day.data.today);
      return c.body(null, 200);
    }
    // An account's packets are bounded at once on each replica (hostile review M12: there was no limit), the
    // next one told when to try again.
    const held = building.get(account) ?? 0;
    if (held >= EXPORTS_AT_ONCE)
      throw new ApiError(
        429,
        'rate_limited',
        `This account is already exporting ${EXPORTS_AT_ONCE} evidence packets: try again in a few seconds, once one is done.`,
        { retryAfterS: 5 },
      );
    // And so are every account's together, by their rows, each run's (the manifest lists the entries behind the
    // rows of every run: a review monitored for months has thousands): a review larger than the bound alone is
    // built when nothing else is.
    const weight = review.totalRows * Math.max(1, review.runs.length);
    if (rowsBuilding > 0 && rowsBuilding + weight > rowsAtOnce)
      throw new ApiError(
        429,
        'rate_limited',
        'PropLens is building other evidence packets right now: try again in a few seconds.',
        { retryAfterS: 5 },
      );
    building.set(account, held + 1);
    rowsBuilding += weight;
    // Held until the packet ends (packetBody): read to its end, failed, cancelled, or cut for its reader's pace.
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      rowsBuilding -= weight;
      const left = (building.get(account) ?? 1) - 1;
      if (left > 0) building.set(account, left);
      else building.delete(account);
    };
    try {
      return await evidenceZip(c, deps, exports, sources, review, { today: day.data.today, release });
    } catch (err) {
      release();
      throw err;
    }
  });
  return app;
}

/** Evidence packets one account has built at once on one replica. */
export const EXPORTS_AT_ONCE = 2;

/**
 * The rows of the evidence packets built at once on one replica, all accounts together. A packet is made as it is
 * read (its files deflated and hashed a chunk at a time), so this bounds the work under way and the manifests at
 * the packets' ends (they grow with the audit entries behind the rows), not whole packets; a packet holds its
 * place until it ends (packetBody).
 */
export const PACKET_ROWS_AT_ONCE = 200_000;

/** PUT /api/reviews/:id/source: the review's file, while its rows are being sent (reviewEvidenceRoutes). */
async function putSource(c: AppContext, deps: ReviewEvidenceRouteDeps, sources: ReviewSources) {
  const session = c.get('session');
  const review = await inDatabase(() =>
    deps.reviews.store.summary(session.accountId, c.req.param('id') as string),
  );
  if (!review) throw new ApiError(404, 'not_found', 'There is no such review in this account.');
  if (review.kind !== 'csv')
    throw new ApiError(409, 'conflict', 'Only a review made from a file keeps its file.');
  if (review.createdBy !== keyFingerprint(session.keyHash))
    throw new ApiError(409, 'conflict', 'Only the key that started the review sends its file.');
  if (review.status !== 'uploading') throw notUploading();
  // Read with a byte limit: a body past it is cut there (413), never read whole. The file's rows are the
  // review's and the blank ones the browser left out.
  const fileRows = review.totalRows + review.skippedBlank;
  const limit = sourceLimit(fileRows);
  let bytes = new Uint8Array();
  await bodyLimit({
    maxSize: limit,
    onError: () => {
      throw new ApiError(
        413,
        'payload_too_large',
        `The file of a review of ${fileRows.toLocaleString('en-US')} ${fileRows === 1 ? 'row' : 'rows'} is at most ${megabytes(limit)}.`,
      );
    },
  })(c, async () => {
    bytes = new Uint8Array(await c.req.arrayBuffer());
  });
  if (bytes.length === 0) throw new ApiError(400, 'bad_request', 'The file is empty.');
  const name = sourceFileName(c.req.query('name'));
  const file = { name, bytes, at: (deps.now ?? Date.now)() };
  const stored = await inDatabase(() =>
    sources.receive(
      session.accountId,
      review.id,
      file,
      deps.reviewMaxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES,
    ),
  );
  if (stored === 'not_found')
    throw new ApiError(404, 'not_found', 'There is no such review in this account.');
  if (stored === 'closed') throw notUploading();
  if (stored === 'different')
    throw new ApiError(409, 'conflict', 'This review already has its file, and it is another one.');
  // The same bytes again (a retry whose answer was lost) change nothing.
  return c.json({ name, bytes: bytes.length }, stored === 'stored' ? 201 : 200);
}

/**
 * GET /api/reviews/:id/evidence.zip: the finished review's signed packet (reviewEvidenceRoutes), made as it is
 * read. The exports are asked first, so a review that cannot be exported is a 500 before anything is sent; after
 * that, a failure cuts the download (the browser says the packet could not be made), and `release` is called once
 * the packet has ended either way.
 */
async function evidenceZip(
  c: AppContext,
  deps: ReviewEvidenceRouteDeps,
  exports: Hono<AppEnv>,
  sources: ReviewSources,
  review: ReviewSummary,
  /** The reader's day (YYYY-MM-DD), or none: UTC's. */
  { today, release }: { today: string | undefined; release: () => void },
) {
  const session = c.get('session');
  const id = review.id;
  await deps.flushAudit?.();
  const asked = async (file: string) => {
    // The export routes read the session from their own cookie (not the https one: they see no https).
    const res = await exports.request(`/${encodeURIComponent(id)}/${file}${today ? `?today=${today}` : ''}`, {
      headers: { cookie: `proplens_session=${c.get('sessionId')}` },
    });
    if (!res.ok || !res.body) throw new ApiError(500, 'internal', 'The review could not be exported.');
    return res.body;
  };
  // The trail's head before the exports are asked: a change of the review after it is one they may show. And the
  // names of the account's keys they print (a rename adds no entry of the review's).
  const since = await inDatabase(() => deps.packets.head());
  const names = JSON.stringify(await deps.keyNames?.(session));
  const source = await inDatabase(() => sources.get(review.id));
  const csv = await asked('export.csv');
  const json = await asked('export.json').catch(async (err: unknown) => {
    await csv.cancel();
    throw err;
  });
  const head = new JsonHead();
  const runs = new TextEncoder().encode(
    `${JSON.stringify({ review: review.id, runs: review.runs }, null, 2)}\n`,
  );
  const chunks = deps.packets.stream(
    {
      review,
      account: { id: session.accountId, name: session.account.name },
      host: packetHost(c.req.header('host'), deps.allowedHosts ?? []),
      source: source ? { name: source.name, receivedAt: source.receivedAt } : null,
    },
    [
      { name: 'results.csv', bytes: chunksOf(csv) },
      { name: 'results.json', bytes: head.tap(chunksOf(json)) },
      ...(source ? [{ name: `source/${source.name}`, bytes: source.bytes }] : []),
      { name: 'runs.json', bytes: runs },
    ],
    {
      // Who started the review and its sign-off as the JSON export states them, names beside keys.
      facts: () => {
        const about = head.review();
        return {
          startedByName: (about.startedByName as string | null) ?? null,
          signOff: (about.signOff as PacketSignOff | null | undefined) ?? null,
        };
      },
      // As it was when its exports were asked: no entry behind it since (every change of what they say adds one),
      // its keys' names as they were, still there, its runs as they were (a review deleted, or checked again,
      // leaves no entry of its own).
      unchanged: async () => {
        if (await inDatabase(() => deps.packets.changedSince(session.accountId, id, since))) return false;
        if (JSON.stringify(await deps.keyNames?.(session)) !== names) return false;
        const now = await inDatabase(() => deps.reviews.store.summary(session.accountId, id));
        return now !== undefined && JSON.stringify(now.runs) === JSON.stringify(review.runs);
      },
    },
  );
  const ended = () => {
    release();
    // An export never read (a packet cut during the CSV) stops its reads too.
    void Promise.all([csv.cancel().catch(() => {}), json.cancel().catch(() => {})]);
  };
  packetHeaders(c, deps, review, today);
  const requestId = c.get('requestId');
  return c.body(
    packetBody(chunks, ended, {
      failed: (err) =>
        deps.logger.error(
          { requestId, err: { name: err.name, message: err.message } },
          'evidence packet failed',
        ),
      torn: () =>
        deps.logger.info({ requestId }, 'evidence packet cut: the review changed while it was read'),
    }),
  );
}

/** The packet's answer's headers: a ZIP, named as Export CSV and Export JSON name theirs, never kept. */
function packetHeaders(c: AppContext, deps: ReviewEvidenceRouteDeps, review: ReviewSummary, today?: string) {
  c.header('Content-Type', 'application/zip');
  const day = today ?? new Date((deps.now ?? Date.now)()).toISOString().slice(0, 10);
  c.header(
    'Content-Disposition',
    `attachment; filename="${exportFileName(review.name, 'evidence.zip', day)}"`,
  );
  c.header('Cache-Control', 'no-store');
}

const notUploading = () =>
  new ApiError(
    409,
    'conflict',
    'A review’s file is taken only while its rows are being sent: this review has all its rows (or was cancelled), so it keeps no file.',
  );

const megabytes = (n: number) =>
  `${(n / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;

/**
 * The host a packet says it was exported at: the request's Host only when ALLOWED_HOSTS names it exactly (the
 * operator's word that it is this PropLens), else "unconfigured host". Never a name the client chose alone: the
 * request guard also serves any IP literal, localhost and a wildcard's every subdomain, so `Host: 8.8.8.8` would
 * make a packet "signed by PropLens at 8.8.8.8".
 */
export function packetHost(requestHost: string | undefined, allowedHosts: readonly string[]): string {
  const name = (requestHost ?? '').trim().toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '');
  const named = name !== '' && !name.startsWith('*') && isIP(name) === 0 && allowedHosts.includes(name);
  return named ? name : UNCONFIGURED_HOST;
}
