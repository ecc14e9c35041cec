import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type AppNotification, StoredChange } from '../../contract/index.ts';
import type { NotificationsTable } from '../db/migration-0016-monitoring.ts';
import type { DatabaseSchema } from '../db/schema.ts';

type Db = Kysely<DatabaseSchema>;

/** The alerts monitored runs left (migration 0016), per account, newest first. */
export class SqlNotifications {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * The slot's decision, once across replicas: marks the slot decided (an UPDATE that repeats `decided_at is
   * null`, so a second replica's finds nothing to do) and, when `change` is worth an alert, inserts it in the same
   * transaction. Answers the alert's id, or undefined (none, or another replica decided).
   */
  async decide(
    slot: { review_id: string; scheduled_at: number },
    accountId: string,
    change: StoredChange | undefined,
  ): Promise<string | undefined> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const won = await trx
        .updateTable('monitor_slots')
        .set({ decided_at: now })
        .where('review_id', '=', slot.review_id)
        .where('scheduled_at', '=', Number(slot.scheduled_at))
        .where('decided_at', 'is', null)
        .executeTakeFirst();
      if (Number(won.numUpdatedRows) !== 1 || !change) return undefined;
      const id = `nt_${randomBytes(12).toString('base64url')}`;
      const inserted = await trx
        .insertInto('notifications')
        .values({
          id,
          account_id: accountId,
          review_id: change.reviewId,
          run: change.run,
          data: JSON.stringify(change),
          created_at: now,
          read_at: null,
          webhook_at: null,
        })
        // A run is one alert, also when a Check again a person started was taken for a slot's.
        .onConflict((oc) => oc.columns(['review_id', 'run']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1 ? id : undefined;
    });
  }

  /** Alerts whose review.changed is not queued yet (the replica that made them died before it queued it). */
  async unsent(limit = 50): Promise<NotificationsTable[]> {
    return this.db
      .selectFrom('notifications')
      .selectAll()
      .where('webhook_at', 'is', null)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  async sent(id: string): Promise<void> {
    await this.db.updateTable('notifications').set({ webhook_at: this.now() }).where('id', '=', id).execute();
  }

  /** A page of the account's alerts, newest first, after `cursor` (the last one's "created_at:id"). */
  async page(accountId: string, limit: number, cursor?: string) {
    let q = this.db
      .selectFrom('notifications as n')
      .leftJoin('reviews as r', 'r.id', 'n.review_id')
      .select(['n.id', 'n.review_id', 'n.run', 'n.data', 'n.created_at', 'n.read_at', 'r.name'])
      .where('n.account_id', '=', accountId)
      .orderBy('n.created_at', 'desc')
      .orderBy('n.id', 'desc')
      .limit(limit + 1);
    const at = cursor ? /^(\d{1,16}):(nt_[\w-]{1,40})$/.exec(cursor) : null;
    if (at) {
      const [, time, id] = at as unknown as [string, string, string];
      q = q.where((eb) =>
        eb.or([
          eb('n.created_at', '<', Number(time)),
          eb.and([eb('n.created_at', '=', Number(time)), eb('n.id', '<', id)]),
        ]),
      );
    }
    const rows = await q.execute();
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      notifications: shown.map((n): AppNotification => {
        const data = StoredChange.parse(JSON.parse(n.data));
        return {
          id: n.id,
          reviewId: n.review_id,
          reviewName: n.name ?? null,
          run: Number(n.run),
          rowsChanged: data.rowsChanged,
          counts: data.counts,
          createdAt: new Date(Number(n.created_at)).toISOString(),
          readAt: n.read_at === null ? null : new Date(Number(n.read_at)).toISOString(),
        };
      }),
      nextCursor: rows.length > limit && last ? `${Number(last.created_at)}:${last.id}` : null,
    };
  }

  async unread(accountId: string): Promise<number> {
    const { n } = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  /** Marks the account's alerts read: those named, or all. */
  async markRead(accountId: string, ids: readonly string[] | 'all'): Promise<void> {
    if (ids !== 'all' && ids.length === 0) return;
    let q = this.db
      .updateTable('notifications')
      .set({ read_at: this.now() })
      .where('account_id', '=', accountId)
      .where('read_at', 'is', null);
    if (ids !== 'all') q = q.where('id', 'in', ids);
    await q.execute();
  }
}
