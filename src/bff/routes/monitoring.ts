import { Hono } from 'hono';
import {
  type AuditKind,
  MarkReadRequest,
  type Monitor,
  type MonitorListResponse,
  MonitorRequest,
  type NotificationsResponse,
} from '../../contract/index.ts';
import { type Audit, reviewEntry } from '../audit/audit.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import type { Monitoring } from '../monitoring/index.ts';
import type { MonitorEntry } from '../monitoring/monitor-store.ts';
import { canonicalTimeZone, isTimeZone } from '../monitoring/schedule.ts';
import { keyFingerprint, type Session, type SessionStore } from '../stores/sessions/types.ts';

export interface MonitoringRouteDeps {
  monitoring: Monitoring;
  sessions: SessionStore;
  /** The audit trail's recorder; absent only where the trail is off. */
  audit?: Audit;
}

const notFound = () => new ApiError(404, 'not_found', 'There is no such review in this account.');
const WORDS = { minute: 'every minute', hour: 'every hour', day: 'every day', week: 'every week' } as const;

/**
 * Monitoring (issue 29), mounted at /api: PUT and DELETE /reviews/:id/monitor (Monitor, Stop monitoring: any key
 * of the account, each an entry of the audit trail in the change's transaction), GET /monitors, GET
 * /notifications and POST /notifications/read. Mutations carry X-Requested-With like every /api call
 * (middleware/csrf.ts).
 */
export function monitoringRoutes(deps: MonitoringRouteDeps) {
  const app = new Hono<AppEnv>();
  const session = requireSession(deps.sessions);
  app.put(
    '/reviews/:id/monitor',
    session,
    jsonBody(MonitorRequest, { maxBytes: 8 * 1024, tooLarge: 'Too large.' }),
    (c) => monitor(c, deps, c.req.valid('json')),
  );
  app.delete('/reviews/:id/monitor', session, (c) => stop(c, deps));
  app.get('/monitors', session, async (c) => {
    const monitors = await inDatabase(() => deps.monitoring.monitors.list(c.get('session').accountId));
    return c.json({ monitors, intervals: deps.monitoring.intervals } satisfies MonitorListResponse);
  });
  app.get('/notifications', session, (c) => notificationsPage(c, deps));
  app.post(
    '/notifications/read',
    session,
    jsonBody(MarkReadRequest, { maxBytes: 32 * 1024, tooLarge: 'Mark at most 500 at once.' }),
    async (c) => {
      const { accountId } = c.get('session');
      const { ids, all } = c.req.valid('json');
      const { notifications } = deps.monitoring;
      await inDatabase(() => notifications.markRead(accountId, all ? 'all' : (ids ?? [])));
      return c.json({ unread: await inDatabase(() => notifications.unread(accountId)) });
    },
  );
  return app;
}

async function monitor(c: AppContext, deps: MonitoringRouteDeps, asked: MonitorRequest) {
  const s = c.get('session');
  if (!deps.monitoring.intervals.includes(asked.interval))
    throw new ApiError(400, 'bad_request', `This server does not offer “${WORDS[asked.interval]}”.`);
  if (!isTimeZone(asked.timeZone))
    throw new ApiError(400, 'bad_request', `“${asked.timeZone}” is not a time zone this server knows.`);
  // Kept as the runtime names the zone, whatever its spelling in the request.
  const request = { ...asked, timeZone: canonicalTimeZone(asked.timeZone) };
  deps.audit?.assertWritable();
  const schedule =
    request.interval === 'minute'
      ? WORDS.minute
      : `${WORDS[request.interval]} at ${request.timeOfDay} (${request.timeZone})`;
  const answer = await inDatabase(() =>
    deps.monitoring.monitors.put(
      s.accountId,
      c.req.param('id') as string,
      request,
      keyFingerprint(s.keyHash),
      deps.audit ? entry(s, 'monitor_started', schedule) : undefined,
    ),
  );
  if (answer === 'not_found') throw notFound();
  if (answer === 'not_run')
    throw new ApiError(409, 'conflict', 'This review has not run yet: monitor it once it has been checked.');
  return c.json(answer satisfies Monitor);
}

async function stop(c: AppContext, deps: MonitoringRouteDeps) {
  const s = c.get('session');
  deps.audit?.assertWritable();
  const gone = await inDatabase(() =>
    deps.monitoring.monitors.remove(
      s.accountId,
      c.req.param('id') as string,
      deps.audit ? entry(s, 'monitor_stopped', null) : undefined,
    ),
  );
  if (!gone) throw new ApiError(404, 'not_found', 'This review is not monitored.');
  return c.body(null, 204);
}

/** GET /api/notifications?cursor=&limit=: the unread count and a page of alerts, newest first. */
async function notificationsPage(c: AppContext, deps: MonitoringRouteDeps) {
  const { accountId } = c.get('session');
  const limit = Math.min(100, Math.max(1, Number(c.req.query('limit') ?? 50) || 50));
  const { notifications } = deps.monitoring;
  const page = await inDatabase(() => notifications.page(accountId, limit, c.req.query('cursor')));
  const unread = await inDatabase(() => notifications.unread(accountId));
  return c.json({ unread, ...page } satisfies NotificationsResponse);
}

/** The change's audit entry: who, which review, the schedule (`query`); system time, as the trail keeps. */
function entry(session: Session, kind: AuditKind, schedule: string | null): MonitorEntry {
  return (review) => reviewEntry(session, kind, review.id, schedule, null, Date.now());
}
