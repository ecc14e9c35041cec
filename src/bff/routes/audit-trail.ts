import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { AuditQuery, type AuditResponse, csvCell, keyFilterFingerprint } from '../../contract/index.ts';
import type { AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { requireSession } from '../middleware/session.ts';
import type { AuditFilters, SqlAuditStore } from '../stores/audit/audit-store.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';

export interface AuditTrailRouteDeps {
  store: SqlAuditStore;
  sessions: SessionStore;
  /** Writes what this replica still holds, so a page shows the lookup just made (read your own writes). */
  flush?: () => Promise<void>;
  /** The names of the account's keys this session may read (session.ts keyNamesFor), for the export. */
  keyNames?: (session: Session) => Promise<readonly { fingerprint: string; name: string }[]>;
}

async function filtersOf(
  query: Record<string, string>,
  names: () => Promise<readonly { fingerprint: string; name: string }[]>,
): Promise<{
  filters: AuditFilters;
  cursor: number | null;
  limit: number;
}> {
  const parsed = AuditQuery.safeParse(query);
  if (!parsed.success)
    throw new ApiError(400, 'bad_request', parsed.error.issues[0]?.message ?? 'Bad filter.');
  const q = parsed.data;
  const to = q.to ? Date.parse(q.to) + (q.to.length === 10 ? 86_400_000 : 0) : undefined;
  const filters: AuditFilters = {
    ...(q.from ? { from: Date.parse(q.from) } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q.outcome ? { outcome: q.outcome } : {}),
    ...(q.q?.trim() ? { text: q.q.trim() } : {}),
    ...(q.key ? { keyFingerprint: await keyOf(q.key, names) } : {}),
    ...(q.propertyId ? { propertyId: q.propertyId } : {}),
  };
  return { filters, cursor: q.cursor ? Number(q.cursor) : null, limit: q.limit ?? 100 };
}

export const AUDIT_COLUMNS = [
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
  'review_owner',
  // Who the key and the review's owner are, by the names people gave their keys (empty where none).
  'key_name',
  'review_owner_name',
] as const;

/**
 * The key a filter names: by fingerprint, or by the name the table shows beside it (any case), among the names this
 * session may read; a name nobody has is refused, so an empty page never pretends a known person did nothing.
 */
async function keyOf(
  given: string,
  names: () => Promise<readonly { fingerprint: string; name: string }[]>,
): Promise<string> {
  const fingerprint = keyFilterFingerprint(given);
  if (fingerprint) return fingerprint;
  const wanted = given.normalize('NFKC').toLocaleLowerCase();
  const named = (await names()).filter((k) => k.name.normalize('NFKC').toLocaleLowerCase() === wanted);
  if (named.length === 1) return (named[0] as { fingerprint: string }).fingerprint;
  throw new ApiError(
    400,
    'bad_request',
    named.length === 0
      ? `key: no key of this account is named “${given}”. Give a name the table shows, or a key (key 1a2b3c4d).`
      : `key: several keys are named “${given}”. Give the key as the table shows it (key 1a2b3c4d).`,
  );
}

/** /api/activity: the account's audit trail (newest first, keyset pages), a property's history, a CSV export. */
export function auditTrailRoutes(deps: AuditTrailRouteDeps) {
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));

  app.get('/', async (c) => {
    const { filters, cursor, limit } = await filtersOf(c.req.query(), () =>
      readableNames(deps, c.get('session')),
    );
    await deps.flush?.();
    const page = await inDatabase(() =>
      deps.store.search(c.get('session').accountId, filters, cursor, limit),
    );
    return c.json({
      entries: page.entries,
      nextCursor: page.next === null ? null : String(page.next),
      searchedBackTo: page.searchedBackTo === null ? null : new Date(page.searchedBackTo).toISOString(),
    } satisfies AuditResponse);
  });

  app.get('/export.csv', async (c) => {
    const { filters } = await filtersOf(c.req.query(), () => readableNames(deps, c.get('session')));
    await deps.flush?.();
    const accountId = c.get('session').accountId;
    const names = new Map(
      (await readableNames(deps, c.get('session'))).map((k) => [k.fingerprint, k.name] as const),
    );
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="proplens-activity.csv"');
    return stream(c, async (out) => {
      await out.write(`\ufeff${AUDIT_COLUMNS.join(',')}\r\n`);
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
            // Counted from 1, as the table and the review number their rows.
            e.row === null ? null : e.row + 1,
            e.reviewOwner ?? null,
            names.get(e.keyFingerprint) ?? null,
            e.reviewOwner ? (names.get(e.reviewOwner) ?? null) : null,
          ]
            .map((v) => csvCell(v))
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

const readableNames = async (deps: AuditTrailRouteDeps, session: Session) =>
  (await deps.keyNames?.(session)) ?? [];
