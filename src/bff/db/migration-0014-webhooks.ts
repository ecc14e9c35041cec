import type { Kysely, Migration } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0014: webhooks (src/bff/webhooks/). An account's endpoints with their signing secrets; the outbox, one
 * row per event per endpoint, leased by the dispatcher of any replica (UNIQUE endpoint and dedupe key: enqueuing
 * the same event twice, from two replicas, keeps one); and each attempt to send one, for the delivery log.
 */
export const webhooks: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('visitor', 'text')
      .execute();
    await db.schema
      .createIndex('webhook_endpoints_by_account')
      .on('webhook_endpoints')
      .columns(['account_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('webhook_outbox')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('dedupe_key', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('retry_until', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addUniqueConstraint('webhook_outbox_dedupe', ['endpoint_id', 'dedupe_key'])
      .execute();
    // The dispatcher's seeks: due rows by state and time; an endpoint's deliveries newest first.
    await db.schema
      .createIndex('webhook_outbox_due')
      .on('webhook_outbox')
      .columns(['state', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_outbox_by_endpoint')
      .on('webhook_outbox')
      .columns(['endpoint_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('outbox_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('response', 'text')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['outbox_id', 'attempt'])
      .execute();
  },
};
