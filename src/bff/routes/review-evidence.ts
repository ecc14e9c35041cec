import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_REVIEW_BYTES } from '../../contract/index.ts';
import type { AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { EvidencePackets } from '../evidence/packet.ts';
import { ReviewSources, sourceFileName } from '../evidence/packet-source.ts';
import { requireSession } from '../middleware/session.ts';
import { keyFingerprint } from '../stores/sessions/types.ts';
import { type ReviewExportRouteDeps, reviewExportRoutes } from './review-export.ts';

export interface ReviewEvidenceRouteDeps extends ReviewExportRouteDeps {
  packets: EvidencePackets;
  /** Commits the audit entries still buffered, so the packet's checkpoint and entries include them. */
  flushAudit?: () => Promise<void>;
}

/**
 * GET /api/reviews/:id/evidence.zip (any key of the account): the finished review's signed evidence packet
 * (evidence/packet.ts), named after the review. PUT /api/reviews/:id/source?name=: the file a review was made
 * from, its raw bytes, sent once after the review is created by the key that created it; the packet carries it
 * as `source/<name>`.
 */
export function reviewEvidenceRoutes(deps: ReviewEvidenceRouteDeps) {
  // results.csv and results.json are the exports themselves, asked of the export routes with this session, so
  // the packet holds exactly what Export CSV and Export JSON download.
  const exports = reviewExportRoutes(deps);
  const app = new Hono<AppEnv>();
  const sources = new ReviewSources(deps.reviews.database.db);
  app.use('*', requireSession(deps.sessions));
  app.put(
    '/:id/source',
    bodyLimit({
      maxSize: MAX_REVIEW_BYTES,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', 'A review’s file is at most 20 MB.');
      },
    }),
    async (c) => {
      const session = c.get('session');
      const review = await inDatabase(() => deps.reviews.store.summary(session.accountId, c.req.param('id')));
      if (!review) throw new ApiError(404, 'not_found', 'There is no such review in this account.');
      if (review.kind !== 'csv')
        throw new ApiError(409, 'conflict', 'Only a review made from a file keeps its file.');
      if (review.createdBy !== keyFingerprint(session.keyHash))
        throw new ApiError(409, 'conflict', 'Only the key that started the review sends its file.');
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.length === 0) throw new ApiError(400, 'bad_request', 'The file is empty.');
      const name = sourceFileName(c.req.query('name'));
      const stored = await inDatabase(() => sources.put(review.id, name, bytes, (deps.now ?? Date.now)()));
      if (stored === 'different')
        throw new ApiError(409, 'conflict', 'This review already has its file, and it is another one.');
      return c.json({ name, bytes: bytes.length }, stored === 'stored' ? 201 : 200);
    },
  );
  app.get('/:id/evidence.zip', async (c) => {
    const session = c.get('session');
    const id = c.req.param('id');
    const review = await inDatabase(() => deps.reviews.store.summary(session.accountId, id));
    if (!review) throw new ApiError(404, 'not_found', 'There is no such review in this account.');
    if (!review.runs.at(-1)?.finishedAt)
      throw new ApiError(
        409,
        'conflict',
        'The review is still running: export its evidence once it is done.',
      );
    await deps.flushAudit?.();
    const asked = async (file: string) => {
      // The export routes read the session from their own cookie (not the https one: they see no https).
      const res = await exports.request(`/${encodeURIComponent(id)}/${file}`, {
        headers: { cookie: `proplens_session=${c.get('sessionId')}` },
      });
      if (!res.ok) throw new ApiError(500, 'internal', 'The review could not be exported.');
      return new Uint8Array(await res.arrayBuffer());
    };
    const [csv, json] = [await asked('export.csv'), await asked('export.json')];
    const about = (JSON.parse(new TextDecoder().decode(json)) as { review: Record<string, unknown> }).review;
    const source = await inDatabase(() => sources.get(review.id));
    const runs = new TextEncoder().encode(
      `${JSON.stringify({ review: review.id, runs: review.runs }, null, 2)}\n`,
    );
    const packet = await deps.packets.build(
      {
        review,
        account: { id: session.accountId, name: session.account.name },
        startedByName: (about.startedByName as string | null) ?? null,
        signOff: about.signOff ?? null,
        host: new URL(c.req.url).host,
      },
      [
        { name: 'results.csv', bytes: csv },
        { name: 'results.json', bytes: json },
        ...(source ? [{ name: `source/${source.name}`, bytes: source.bytes }] : []),
        { name: 'runs.json', bytes: runs },
      ],
    );
    c.header('Content-Type', 'application/zip');
    c.header('Content-Disposition', `attachment; filename="${evidenceFileName(review.name)}"`);
    c.header('Cache-Control', 'no-store');
    return c.body(packet.zip as Uint8Array<ArrayBuffer>);
  });
  return app;
}

/**
 * "<review name>.evidence.zip" with only letters, digits, spaces, dots, dashes and underscores (safe in a header
 * and on any disk): quotes and apostrophes dropped, any other run of characters a space.
 */
export function evidenceFileName(name: string): string {
  const safe =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f'"`\u2018\u2019\u201c\u201d]/g, '')
      .replace(/[^A-Za-z0-9._-]+/g, ' ')
      .trim()
      .replace(/^[.-]+|[.-]+$/g, '')
      .slice(0, 80)
      .trim() || 'review';
  return `${safe}.evidence.zip`;
}
