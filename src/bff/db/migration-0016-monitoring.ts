import type { Kysely, Migration } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0016 (issue 29): monitored reviews, their scheduled runs and the alerts they leave.
 *
 * A review has at most one monitor (`monitors`, keyed by the review). Each scheduled time is a row of
 * `monitor_slots` whose primary key (review, scheduled_at) is the "exactly once across replicas": a replica
 * that inserts it runs it, one whose insert meets the key does nothing. The inserter holds it by a lease until
 * its run has started (a replica killed in between leaves a lease another takes). `notifications` are the
 * in-app alerts of an account.
 */
export const monitoring: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('monitors')
      .addColumn('review_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // minute, hour, day or week.
      .addColumn('interval', 'text', (c) => c.notNull())
      // 'HH:MM' in the monitor's time zone; an hourly monitor runs at its minute.
      .addColumn('time_of_day', 'text', (c) => c.notNull())
      // 0 (Sunday) to 6: a weekly monitor's day, in its time zone.
      .addColumn('weekday', 'integer', (c) => c.notNull())
      .addColumn('time_zone', 'text', (c) => c.notNull())
      // JSON MonitorRules.
      .addColumn('rules', 'text', (c) => c.notNull())
      .addColumn('monthly_cap', 'integer', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('next_run_at', 'bigint', (c) => c.notNull())
      .addColumn('last_run_at', 'bigint')
      // cap_reached; null while it runs.
      .addColumn('paused_reason', 'text')
      .addColumn('paused_at', 'bigint')
      .execute();
    await db.schema.createIndex('monitors_due').on('monitors').columns(['next_run_at']).execute();
    await db.schema
      .createTable('monitor_slots')
      .addColumn('review_id', 'text', (c) => c.notNull())
      .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_at', 'bigint', (c) => c.notNull())
      // claimed (its run not started yet), started, busy (the review was running), capped, gone.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('run', 'integer')
      // When its finished run was compared with the one before (an alert or none): once, by one replica.
      .addColumn('decided_at', 'bigint')
      .addPrimaryKeyConstraint('monitor_slots_pk', ['review_id', 'scheduled_at'])
      .execute();
    await db.schema
      .createIndex('monitor_slots_open')
      .on('monitor_slots')
      .columns(['state', 'decided_at'])
      .execute();
    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('review_id', 'text', (c) => c.notNull())
      .addColumn('run', 'integer', (c) => c.notNull())
      // JSON ReviewChangedData: counts by kind of change and each changed row's before and after.
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('read_at', 'bigint')
      // When review.changed was queued for the account's webhooks (null: not yet).
      .addColumn('webhook_at', 'bigint')
      .addUniqueConstraint('notifications_run', ['review_id', 'run'])
      .execute();
    // Every replica's pass looks for alerts whose webhook is not queued yet.
    await db.schema.createIndex('notifications_unsent').on('notifications').column('webhook_at').execute();
    await db.schema
      .createIndex('notifications_by_account')
      .on('notifications')
      .columns(['account_id', 'created_at'])
      .execute();
  },
};

export interface MonitorsTable {
  review_id: string;
  account_id: string;
  interval: string;
  time_of_day: string;
  weekday: number;
  time_zone: string;
  rules: string;
  monthly_cap: number;
  created_by: string;
  created_at: number;
  next_run_at: number;
  last_run_at: number | null;
  paused_reason: string | null;
  paused_at: number | null;
}

export interface MonitorSlotsTable {
  review_id: string;
  scheduled_at: number;
  claimed_at: number;
  state: string;
  lease_owner: string | null;
  lease_until: number;
  run: number | null;
  decided_at: number | null;
}

export interface NotificationsTable {
  id: string;
  account_id: string;
  review_id: string;
  run: number;
  data: string;
  created_at: number;
  read_at: number | null;
  webhook_at: number | null;
}
