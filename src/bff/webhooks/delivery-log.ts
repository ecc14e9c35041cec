import type { Kysely } from 'kysely';
import type {
  WebhookDeliveriesResponse,
  WebhookDelivery,
  WebhookDeliveryState,
} from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';

/** Deliveries on a page of the log, and the attempts shown under each (newest first). */
export const DELIVERIES_PAGE = 20;
const ATTEMPTS_SHOWN = 10;

const iso = (ms: number) => new Date(Number(ms)).toISOString();

/**
 * An endpoint's delivery log, newest event first, a page at a time: each event (its `webhook-id`, type, state) with
 * its latest attempts. `before` is the previous page's `next` (created_at and id of its last delivery): a seek in
 * webhook_outbox_by_endpoint, so a page costs the same however long the log.
 */
export async function deliveryLog(
  db: Kysely<DatabaseSchema>,
  endpointId: string,
  before: string | undefined,
): Promise<WebhookDeliveriesResponse> {
  const cursor = before ? parseCursor(before) : null;
  const rows = await db
    .selectFrom('webhook_outbox')
    .select(['id', 'type', 'state', 'created_at', 'next_attempt_at', 'delivered_at'])
    .where('endpoint_id', '=', endpointId)
    .$if(cursor !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb('created_at', '<', cursor?.at ?? 0),
          eb.and([eb('created_at', '=', cursor?.at ?? 0), eb('id', '<', cursor?.id ?? '')]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(DELIVERIES_PAGE + 1)
    .execute();
  const page = rows.slice(0, DELIVERIES_PAGE);
  const attempts =
    page.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'outbox_id',
            'in',
            page.map((r) => r.id),
          )
          .orderBy('attempt', 'desc')
          .execute();
  const deliveries = page.map(
    (r): WebhookDelivery => ({
      id: r.id,
      type: r.type,
      state: r.state as WebhookDeliveryState,
      createdAt: iso(r.created_at),
      nextAttemptAt: r.state === 'pending' ? iso(r.next_attempt_at) : null,
      deliveredAt: r.delivered_at === null ? null : iso(r.delivered_at),
      attempts: attempts
        .filter((a) => a.outbox_id === r.id)
        .slice(0, ATTEMPTS_SHOWN)
        .map((a) => ({
          attempt: Number(a.attempt),
          at: iso(a.at),
          statusCode: a.status_code === null ? null : Number(a.status_code),
          error: a.error,
          durationMs: Number(a.duration_ms),
          response: a.response,
        })),
    }),
  );
  const last = page.at(-1);
  return {
    deliveries,
    next: rows.length > DELIVERIES_PAGE && last ? `${Number(last.created_at)}.${last.id}` : null,
  };
}

function parseCursor(text: string): { at: number; id: string } | null {
  const m = /^(\d{1,16})\.(msg_[0-9a-f]{24})$/.exec(text);
  return m ? { at: Number(m[1]), id: m[2] as string } : null;
}
