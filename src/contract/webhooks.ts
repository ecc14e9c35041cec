import * as z from 'zod/mini';
import { Confidence, text } from './common.ts';

/*
 * Webhooks: an account's endpoints, the events PropLens sends them and the delivery log. Every message is signed
 * per the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the
 * endpoint's `whsec_` secret, and its body is `{ "type", "timestamp", "data" }` (WebhookMessage).
 */

/** What an endpoint may subscribe to. `webhook.test` is only sent by *Send test event*, whatever is subscribed. */
export const WebhookEventType = z.enum(['review.completed', 'review.changed', 'monitor.paused']);
export type WebhookEventType = z.infer<typeof WebhookEventType>;
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Most endpoints one account may have, and the longest URL one may name. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
export const MAX_WEBHOOK_URL = 2_000;

const count = z.int().check(z.nonnegative());

/** review.completed: a review's run finished (every row answered; a cancelled run sends nothing). */
export const ReviewCompletedData = z.object({
  reviewId: z.string(),
  name: z.string(),
  run: count,
  finishedAt: z.string(),
  counts: z.object({ total: count, matched: count, notFound: count, ambiguous: count, failed: count }),
});
export type ReviewCompletedData = z.infer<typeof ReviewCompletedData>;

/** One changed row of a monitored run: what the record said before and says now. */
const RecordState = z.object({
  propertyId: z.nullable(z.string()),
  source: z.nullable(z.string()),
  confidence: z.nullable(Confidence),
  lastVerified: z.nullable(z.string()),
});
export const ReviewChangedData = z.object({
  reviewId: z.string(),
  name: z.string(),
  run: count,
  /** How many rows changed, by kind of change (confidence_dropped, source_changed, other_property, …). */
  counts: z.record(z.string(), count),
  rows: z.array(z.object({ rowIndex: count, change: z.string(), before: RecordState, after: RecordState })),
});
export type ReviewChangedData = z.infer<typeof ReviewChangedData>;

/** monitor.paused: unattended work stopped (the stored key was refused, or the month's lookup cap reached). */
export const MonitorPausedData = z.object({
  reviewId: z.nullable(z.string()),
  reason: z.enum(['custody_refused', 'cap_reached']),
  message: z.string(),
});
export type MonitorPausedData = z.infer<typeof MonitorPausedData>;

/** The body of every message: its type, when the event happened (ISO 8601) and its data. */
export const WebhookMessage = z.object({
  type: z.string(),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookMessage = z.infer<typeof WebhookMessage>;

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEventType),
  enabled: z.boolean(),
  /** Fingerprint of the key that added it (never the key). */
  createdBy: z.string(),
  createdAt: z.string(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointsResponse = z.object({ endpoints: z.array(WebhookEndpoint) });
export type WebhookEndpointsResponse = z.infer<typeof WebhookEndpointsResponse>;

const events = z
  .array(WebhookEventType)
  .check(z.minLength(1, 'Choose at least one event.'), z.maxLength(WebhookEventType.options.length));

export const CreateWebhookRequest = z.object({
  url: text('Webhook URL').check(
    z.minLength(1, 'Give the Webhook URL.'),
    z.maxLength(MAX_WEBHOOK_URL, `Webhook URL: at most ${MAX_WEBHOOK_URL} characters.`),
  ),
  events,
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z.object({
  enabled: z.optional(z.boolean()),
  events: z.optional(events),
});
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

/** The endpoint with its signing secret: answered once, at creation and at each rotation, never again. */
export const WebhookSecretResponse = z.object({ endpoint: WebhookEndpoint, secret: z.string() });
export type WebhookSecretResponse = z.infer<typeof WebhookSecretResponse>;

/** One try to send a message: its HTTP status, or why there was none (refused, timeout, connection). */
export const WebhookAttempt = z.object({
  attempt: count,
  at: z.string(),
  statusCode: z.nullable(z.int()),
  error: z.nullable(z.string()),
  durationMs: count,
  /** The first bytes of the receiver's answer (at most 1 KB), as text. */
  response: z.nullable(z.string()),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/** pending: waiting for its (next) attempt; sending: an attempt is under way; delivered; failed (gave up). */
export const WebhookDeliveryState = z.enum(['pending', 'sending', 'delivered', 'failed']);
export type WebhookDeliveryState = z.infer<typeof WebhookDeliveryState>;

/** One event for one endpoint: the `webhook-id` every attempt of it carries, and its attempts, newest first. */
export const WebhookDelivery = z.object({
  id: z.string(),
  type: z.string(),
  state: WebhookDeliveryState,
  createdAt: z.string(),
  nextAttemptAt: z.nullable(z.string()),
  deliveredAt: z.nullable(z.string()),
  attempts: z.array(WebhookAttempt),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveriesResponse = z.object({
  deliveries: z.array(WebhookDelivery),
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: z.nullable(z.string()),
});
export type WebhookDeliveriesResponse = z.infer<typeof WebhookDeliveriesResponse>;

export const WebhookTestResponse = z.object({ id: z.string() });
export type WebhookTestResponse = z.infer<typeof WebhookTestResponse>;
