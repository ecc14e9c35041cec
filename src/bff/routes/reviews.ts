import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { stream } from 'hono/streaming';
import type { Logger } from 'pino';
import { explainRecordMatch, LookupBatchRequest, type LookupResult } from '../../contract/index.ts';
import { ClientGone } from '../cancel.ts';
import type { AppEnv } from '../context.ts';
import { ApiError, toApiError } from '../errors.ts';
import { methodNotAllowed, readJson } from '../http.ts';
import type { Lookups } from '../lookups.ts';
import type { BffMetrics } from '../metrics.ts';
import { requireSession } from '../middleware/session.ts';
import { checkAddress } from '../params.ts';
import type { Session, SessionStore } from '../stores/sessions/types.ts';
import type { UpstreamClient } from '../upstream/client.ts';

export interface ReviewRouteDeps {
  lookups: Lookups;
  upstream: UpstreamClient;
  sessions: SessionStore;
  logger: Logger;
  metrics?: Pick<BffMetrics, 'reviewRowsScheduled' | 'reviewRows'>;
  now?: () => number;
}

/**
 * /api/reviews/lookups: a batch of addresses for the review workspace, answered as NDJSON, one line per
 * address as each finishes. Every row goes through the scheduler in the review lane, so the batch is paced to
 * the account's rate limit and an agent's interactive search goes ahead of it; cached rows come back at once.
 * Each row ends with exactly one line, whatever happens to the others.
 */
export function reviewRoutes(deps: ReviewRouteDeps) {
  const now = deps.now ?? Date.now;
  const app = new Hono<AppEnv>();
  const signedIn = requireSession(deps.sessions);

  app.post(
    '/lookups',
    signedIn,
    bodyLimit({
      maxSize: 256 * 1024,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', 'Send at most 50 addresses at once.');
      },
    }),
    async (c) => {
      const parsed = LookupBatchRequest.safeParse(await readJson(c));
      if (!parsed.success) {
        throw new ApiError(
          400,
          'bad_request',
          parsed.error.issues[0]?.message ?? 'Send { "addresses": [...] }.',
        );
      }
      const session = c.get('session');
      const sessionId = c.get('sessionId');
      const signal = c.req.raw.signal;
      deps.metrics?.reviewRowsScheduled.inc(parsed.data.addresses.length);
      c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
      c.header('X-Content-Type-Options', 'nosniff');
      return stream(c, async (out) => {
        let writing = Promise.resolve();
        const write = (line: LookupResult) => {
          writing = writing.then(() => out.write(`${JSON.stringify(line)}\n`)).then(() => {});
          return writing;
        };
        await Promise.all(
          parsed.data.addresses.map(async (address, index) => {
            const line = await lookupOne(deps, session, sessionId, address, index, signal, now);
            if (line && !signal.aborted) await write(line);
          }),
        );
        await writing;
      });
    },
  );
  app.all('/lookups', methodNotAllowed('POST', 'Send lookups with POST.'));
  return app;
}

async function lookupOne(
  deps: ReviewRouteDeps,
  session: Session,
  sessionId: string,
  input: string,
  index: number,
  signal: AbortSignal,
  now: () => number,
): Promise<LookupResult | null> {
  const line = (
    fields: Omit<LookupResult, 'index' | 'retrievedAt' | 'rateLimit' | 'cached'> & { cached?: boolean },
  ) => {
    deps.metrics?.reviewRows.inc({ outcome: fields.outcome, cached: String(fields.cached ?? false) });
    return deps.upstream.rateLimit(session.keyHash).then(
      (rateLimit): LookupResult => ({
        index,
        cached: false,
        retrievedAt: new Date(now()).toISOString(),
        rateLimit,
        ...fields,
      }),
    );
  };
  try {
    const address = checkAddress(input);
    const { property, cached } = await deps.lookups.resolve(session, sessionId, address, {
      signal,
      lane: 'review',
    });
    return line({ outcome: 'matched', property, cached, match: explainRecordMatch(address, property) });
  } catch (err) {
    if (err instanceof ClientGone || signal.aborted) return null;
    const e = toApiError(err);
    if (e.status >= 500 && e.code === 'internal') {
      deps.logger.error(
        { err: { name: (err as Error).name, message: (err as Error).message } },
        'review lookup failed',
      );
    }
    const error = {
      code: e.code,
      message: e.message,
      ...(e.extra.resetAt ? { resetAt: e.extra.resetAt } : {}),
    };
    const candidates = e.extra.candidates;
    if (e.code === 'not_found' || e.code === 'unit_not_found')
      return line({ outcome: 'not_found', error, candidates });
    if (e.code === 'ambiguous') return line({ outcome: 'ambiguous', error, candidates });
    return line({ outcome: 'failed', error });
  }
}
