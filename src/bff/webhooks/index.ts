import type { Logger } from 'pino';
import type { WebhookEventType } from '../../contract/index.ts';
import type { Database } from '../db/database.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { WebhookEndpoints } from './endpoint-store.ts';
import { WebhookOutbox } from './outbox-store.ts';
import type { SecretKeeping } from './secrets.ts';
import { checkTarget, RefusedTarget, type Resolve } from './ssrf.ts';

export { SecretsUnavailable } from './endpoint-store.ts';
export { type SecretKeeping, secretKeepingOf, WebhookSecrets } from './secrets.ts';
export { RefusedTarget } from './ssrf.ts';

export interface WebhooksOptions {
  database: Database;
  logger: Logger;
  /** The BFF's clock. */
  now?: () => number;
  /** How signing secrets are kept: sealed under the server secret custody uses, or (none) not kept at all. */
  secrets: SecretKeeping;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: receivers on loopback and private networks (on premises, tests). */
  allowPrivate: boolean;
  /** Test seams. */
  resolve?: Resolve;
  timeoutMs?: number;
  leaseMs?: number;
  pollMs?: number;
}

export interface Webhooks {
  endpoints: WebhookEndpoints;
  outbox: WebhookOutbox;
  dispatcher: WebhookDispatcher;
  /**
   * Queues an event for the account's endpoints subscribed to it, once per `dedupeKey` (the monitoring slice
   * calls this for review.changed and monitor.paused), and wakes the dispatcher. `owner`: the fingerprint of the
   * key that started the review it is about (a public demo visitor's endpoints hear only of their own).
   */
  enqueue(
    accountId: string,
    type: WebhookEventType,
    data: Record<string, unknown>,
    dedupeKey: string,
    owner?: string,
  ): Promise<string[]>;
  /** Refuses (RefusedTarget, words for the person) a URL no attempt could be sent to. */
  checkUrl(url: string): Promise<void>;
}

/** Webhooks on the BFF's database: endpoints, the outbox and this replica's dispatcher (started by graph.ts). */
export function createWebhooks(options: WebhooksOptions): Webhooks {
  const now = options.now ?? Date.now;
  const { db } = options.database;
  const endpoints = new WebhookEndpoints(db, now, options.secrets);
  const outbox = new WebhookOutbox(db, now, options.secrets);
  const send = {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  const dispatcher = new WebhookDispatcher({
    db,
    outbox,
    logger: options.logger,
    now,
    send,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    // Secrets stored in clear before sealing existed are sealed before anything is sent (migrations run without
    // the server secret, so this is where it can be done).
    prepare: async () => {
      const sealed = await endpoints.sealClearSecrets();
      if (sealed > 0) options.logger.info({ sealed }, 'webhook signing secrets sealed');
    },
  });
  return {
    endpoints,
    outbox,
    dispatcher,
    async enqueue(accountId, type, data, dedupeKey, owner) {
      const ids = await outbox.enqueue(accountId, type, data, dedupeKey, owner ? { owner } : {});
      if (ids.length > 0) dispatcher.notify();
      return ids;
    },
    async checkUrl(url) {
      // Saving waits for DNS no longer than an attempt would.
      const signal = AbortSignal.timeout(send.timeoutMs);
      try {
        await checkTarget(url, { ...send, signal });
      } catch (err) {
        if (!signal.aborted) throw err;
        throw new RefusedTarget(
          `The host of the Webhook URL gave no DNS answer within ${send.timeoutMs / 1000} s.`,
        );
      }
    },
  };
}
