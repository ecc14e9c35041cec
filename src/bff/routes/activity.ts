import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import * as z from 'zod/mini';
import { type ActivityResponse, AuditOutcome, csvCell, MAX_ACTIVITY_TEXT } from '../../contract/index.ts';
import type { AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { requireSession } from '../middleware/session.ts';
import type { ActivityFilters, SqlAuditStore } from '../stores/audit/audit-store.ts';
import type { SessionStore } from '../stores/sessions/types.ts';

export interface ActivityRouteDeps {
  store: SqlAuditStore;
  sessions: SessionStore;
  /** Writes what this replica still holds, so a page shows the lookup just made (read your own writes). */
  flush?: () => Promise<void>;
}

const day = (name: string) =>
  z.optional(
    z
      .string()
      .check(
        z.refine(
          (s) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/.test(s) && isSaneDate(Date.parse(s)),
          `${name}: a date from 2000 to 2100, as YYYY-MM-DD`,
        ),
      ),
  );
const isSaneDate = (ms: number) =>
  !Number.isNaN(ms) && ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2101, 0, 1);

const ActivityQuery = z.object({
  from: day('from'),
  to: day('to'),
  outcome: z.optional(AuditOutcome),
  q: z.optional(
    z.string().check(z.maxLength(MAX_ACTIVITY_TEXT, `q: at most ${MAX_ACTIVITY_TEXT} characters`)),
  ),
  key: z.optional(z.string().check(z.regex(/^[0-9a-f]{8}$/, 'key: a key fingerprint, 8 hex digits'))),
  propertyId: z.optional(z.string().check(z.maxLength(200, 'propertyId: at most 200 characters'))),
  cursor: z.optional(z.string().check(z.regex(/^\d{1,15}$/, 'cursor: the nextCursor of the previous page'))),
  limit: z.optional(z.coerce.number().check(z.int(), z.positive(), z.maximum(500, 'limit: at most 500'))),
});

function filtersOf(query: Record<string, string>): {
  filters: ActivityFilters;
  cursor: number | null;
  limit: number;
} {
  const parsed = ActivityQuery.safeParse(query);
  if (!parsed.success)
    throw new ApiError(400, 'bad_request', parsed.error.issues[0]?.message ?? 'Bad filter.');
  const q = parsed.data;
  const to = q.to ? Date.parse(q.to) + (q.to.length === 10 ? 86_400_000 : 0) : undefined;
  const filters: ActivityFilters = {
    ...(q.from ? { from: Date.parse(q.from) } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q.outcome ? { outcome: q.outcome } : {}),
    ...(q.q?.trim() ? { text: q.q.trim() } : {}),
    ...(q.key ? { keyFingerprint: q.key } : {}),
    ...(q.propertyId ? { propertyId: q.propertyId } : {}),
  };
  return { filters, cursor: q.cursor ? Number(q.cursor) : null, limit: q.limit ?? 100 };
}

export const ACTIVITY_COLUMNS = [
  'time',
  'kind',
  'key',
  'session',
  'asked',
  'outcome',
  'property_id',
  'source',
  'confidence',
  'last_verified',
  'cached',
  'cached_at',
  'review_id',
  'row',
] as const;

/** /api/activity: the account's audit trail (newest first, keyset pages), a property's history, a CSV export. */
export function activityRoutes(deps: ActivityRouteDeps) {
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));

  app.get('/', async (c) => {
    const { filters, cursor, limit } = filtersOf(c.req.query());
    await deps.flush?.();
    const entries = await inDatabase(() =>
      deps.store.page(c.get('session').accountId, filters, cursor, limit),
    );
    const nextCursor = entries.length === limit ? (entries.at(-1)?.id ?? null) : null;
    return c.json({ entries, nextCursor } satisfies ActivityResponse);
  });

  app.get('/export.csv', async (c) => {
    const { filters } = filtersOf(c.req.query());
    await deps.flush?.();
    const accountId = c.get('session').accountId;
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="proplens-activity.csv"');
    return stream(c, async (out) => {
      await out.write(`\ufeff${ACTIVITY_COLUMNS.join(',')}\r\n`);
      let lines: string[] = [];
      for await (const e of deps.store.all(accountId, filters)) {
        if (out.aborted) return;
        lines.push(
          [
            e.at,
            e.kind,
            e.keyFingerprint,
            e.session,
            e.query,
            e.outcome,
            e.propertyId,
            e.source,
            e.confidence,
            e.lastVerified,
            e.cached,
            e.cachedAt,
            e.reviewId,
            e.row,
          ]
            .map(csvCell)
            .join(','),
        );
        if (lines.length >= 1_000) {
          await out.write(`${lines.join('\r\n')}\r\n`);
          lines = [];
        }
      }
      if (lines.length > 0) await out.write(`${lines.join('\r\n')}\r\n`);
    });
  });

  return app;
}
