/** The webhooks' tables (migration 0014). Times are epoch milliseconds. */

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of WebhookEventType. */
  events: string;
  /** 1 or 0. */
  enabled: number;
  /**
   * The `whsec_` signing secret, sealed (`sealed:v1:…`, webhooks/secrets.ts); in clear only in a row from before
   * sealing, until the next start with a server secret seals it.
   */
  secret: string;
  /** Fingerprint of the key that added it. */
  created_by: string;
  created_at: number;
  /**
   * A public demo visitor's fingerprint: strangers share the demo account, so the endpoint is that visitor's alone
   * (only they see it, and it hears only of their reviews); null for a real account's endpoint.
   */
  visitor: string | null;
}

export interface WebhookOutboxTable {
  /** The message id (`webhook-id`), the same on every attempt. */
  id: string;
  endpoint_id: string;
  account_id: string;
  /** Unique per endpoint: the same event enqueued twice (two replicas) is kept once. */
  dedupe_key: string;
  type: string;
  /** The JSON body sent: `{ type, timestamp, data }`. */
  payload: string;
  /** pending, sending (leased), delivered, failed. */
  state: string;
  attempts: number;
  next_attempt_at: number;
  /** No attempt is made after this (24 hours after the event, or a resend's own time). */
  retry_until: number;
  lease_owner: string | null;
  lease_until: number;
  created_at: number;
  delivered_at: number | null;
}

export interface WebhookAttemptsTable {
  outbox_id: string;
  attempt: number;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The answer's first bytes, as text (capped). */
  response: string | null;
}
