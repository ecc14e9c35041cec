import type { Kysely } from 'kysely';
import type { Monitor, MonitorRequest } from '../../contract/index.ts';
import { NOT_A_LOOKUP } from '../audit/audit.ts';
import type { MonitorSlotsTable, MonitorsTable } from '../db/migration-0016-monitoring.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import { insertForChange } from '../stores/audit/chain.ts';
import { scheduleOf, toMonitor, unreadable } from './monitor-rows.ts';
import { isTimeZone, monthStart, nextRunAfter, wallTime } from './schedule.ts';

export { readRules, unreadable } from './monitor-rows.ts';

type Db = Kysely<DatabaseSchema>;

/** A monitor's audit entry, made once the change is known (the review's name for `query`), at `at`. */
export type MonitorEntry = (review: { id: string; name: string }) => NewAuditEntry;

/**
 * The monitors of reviews (migration 0016) as people set them, and the slots the scheduler claims. Every read
 * and write a person makes names the account; the scheduler's read across accounts.
 */
export class SqlMonitors {
  constructor(
    private readonly db: Db,
    /** The BFF's clock (clock.ts): scheduled times follow it. */
    private readonly now: () => number,
    /** MONITOR_MIN_INTERVAL_MINUTES: no monitor runs more often, whatever it was saved with. */
    private readonly minIntervalMinutes = 1,
  ) {}

  #schedule(m: MonitorsTable) {
    return scheduleOf(m, this.minIntervalMinutes);
  }

  /**
   * Monitors the review (or sets its monitor anew: a paused one runs again): its next run the first scheduled
   * time from now. 'not_found': no such review in the account; 'not_run': it has no run to check again yet.
   */
  async put(
    accountId: string,
    reviewId: string,
    request: MonitorRequest,
    createdBy: string,
    entry?: MonitorEntry,
  ): Promise<Monitor | 'not_found' | 'not_run'> {
    return this.db.transaction().execute(async (trx) => {
      const review = await trx
        .selectFrom('reviews')
        .select(['id', 'name'])
        .where('id', '=', reviewId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!review) return 'not_found' as const;
      const run = await trx
        .selectFrom('review_runs')
        .select('run')
        .where('review_id', '=', reviewId)
        .executeTakeFirst();
      if (!run) return 'not_run' as const;
      const now = this.now();
      const row: MonitorsTable = {
        review_id: reviewId,
        account_id: accountId,
        interval: request.interval,
        time_of_day: request.timeOfDay,
        weekday: wallTime(now, request.timeZone).weekday,
        time_zone: request.timeZone,
        rules: JSON.stringify(request.rules),
        monthly_cap: request.monthlyCap,
        created_by: createdBy,
        created_at: now,
        next_run_at: 0,
        last_run_at: null,
        paused_reason: null,
        paused_at: null,
      };
      row.next_run_at = nextRunAfter(this.#schedule(row), now);
      const { review_id: _id, created_at: _at, last_run_at: _last, ...changed } = row;
      await trx
        .insertInto('monitors')
        .values(row)
        .onConflict((oc) => oc.column('review_id').doUpdateSet(changed))
        .execute();
      if (entry) await insertForChange(trx, [entry(review)]);
      return (await this.#read(trx, accountId, reviewId))[0] as Monitor;
    });
  }

  /** Stop monitoring: false when the review has no monitor in the account. Its alerts stay. */
  async remove(accountId: string, reviewId: string, entry?: MonitorEntry): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('monitors')
        .where('review_id', '=', reviewId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return false;
      const review = await trx
        .selectFrom('reviews')
        .select(['id', 'name'])
        .where('id', '=', reviewId)
        .executeTakeFirst();
      if (entry) await insertForChange(trx, [entry(review ?? { id: reviewId, name: '' })]);
      return true;
    });
  }

  /** The account's monitors, the soonest due first. */
  async list(accountId: string): Promise<Monitor[]> {
    return this.#read(this.db, accountId);
  }

  async #read(db: Db, accountId: string, reviewId?: string): Promise<Monitor[]> {
    let q = db
      .selectFrom('monitors as m')
      .innerJoin('reviews as r', 'r.id', 'm.review_id')
      .selectAll('m')
      .select('r.name')
      .where('m.account_id', '=', accountId)
      .orderBy('m.next_run_at')
      .orderBy('m.review_id');
    if (reviewId) q = q.where('m.review_id', '=', reviewId);
    const rows = await q.execute();
    // The interval it runs at (a minimum raised since it was saved shows as the new minimum).
    return Promise.all(
      rows.map(async (m) =>
        toMonitor({ ...m, interval: this.#schedule(m).interval }, m.name, await this.usedThisMonth(db, m)),
      ),
    );
  }

  /** Rows the monitor's runs asked since its month began (in its zone): what the monthly cap counts. */
  async usedThisMonth(db: Db, m: Pick<MonitorsTable, 'review_id' | 'time_zone'>): Promise<number> {
    // A zone this runtime no longer knows (the monitor is paused for it) counts by UTC's month.
    const since = monthStart(this.now(), isTimeZone(m.time_zone) ? m.time_zone : 'UTC');
    const { used } = await db
      .selectFrom('monitor_slots as s')
      .innerJoin('review_runs as u', (j) =>
        j.onRef('u.review_id', '=', 's.review_id').onRef('u.run', '=', 's.run'),
      )
      .select((eb) => eb.fn.sum<number | string | null>('u.total').as('used'))
      .where('s.review_id', '=', m.review_id)
      .where('u.started_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(used ?? 0);
  }

  /** Monitors whose next run has come (not paused), oldest due first. */
  async due(limit = 100): Promise<MonitorsTable[]> {
    return this.db
      .selectFrom('monitors')
      .selectAll()
      .where('next_run_at', '<=', this.now())
      .where('paused_reason', 'is', null)
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
  }

  /**
   * Claims the monitor's due run for `owner`: inserts its slot (review, scheduled time), leased until now +
   * leaseMs, and moves the monitor's next run to the first scheduled time after now (runs missed while no
   * replica was up make one slot, not one each). True for the one claimer of the slot: the slot's primary key
   * refuses every other replica's insert of the same time, and its transaction then moves nothing.
   */
  async claim(m: MonitorsTable, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('monitor_slots')
        .values({
          review_id: m.review_id,
          scheduled_at: Number(m.next_run_at),
          claimed_at: now,
          state: 'claimed',
          lease_owner: owner,
          lease_until: now + leaseMs,
          run: null,
          decided_at: null,
        })
        .onConflict((oc) => oc.columns(['review_id', 'scheduled_at']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await trx
        .updateTable('monitors')
        .set({ next_run_at: nextRunAfter(this.#schedule(m), now) })
        .where('review_id', '=', m.review_id)
        .where('next_run_at', '=', Number(m.next_run_at))
        .execute();
      return true;
    });
  }

  /** Slots whose run is not started: this replica's, and others' whose lease ran out (a replica that died). */
  async unstarted(owner: string, limit = 100): Promise<MonitorSlotsTable[]> {
    return this.db
      .selectFrom('monitor_slots')
      .selectAll()
      .where('state', '=', 'claimed')
      .where((eb) => eb.or([eb('lease_owner', '=', owner), eb('lease_until', '<=', this.now())]))
      .orderBy('scheduled_at')
      .limit(limit)
      .execute();
  }

  /**
   * Takes (or renews) the slot's lease for `owner`: an UPDATE that repeats the condition, so of two replicas
   * after the same expired lease one takes it (on PostgreSQL the second waits, then finds it taken).
   */
  async lease(slot: MonitorSlotsTable, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.now();
    const taken = await this.db
      .updateTable('monitor_slots')
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('review_id', '=', slot.review_id)
      .where('scheduled_at', '=', Number(slot.scheduled_at))
      .where('state', '=', 'claimed')
      .where((eb) => eb.or([eb('lease_owner', '=', owner), eb('lease_until', '<=', now)]))
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /** Why the review's monitor cannot be read (unreadable()), or null (readable, or no monitor). */
  async unreadableFor(reviewId: string): Promise<string | null> {
    const m = await this.db
      .selectFrom('monitors')
      .select(['time_zone', 'rules'])
      .where('review_id', '=', reviewId)
      .executeTakeFirst();
    return m ? unreadable(m) : null;
  }

  /** What the slot's claimer needs: its monitor (undefined: stopped since), the review's rows, the month's use. */
  async forStart(slot: MonitorSlotsTable) {
    const monitor = await this.db
      .selectFrom('monitors as m')
      .innerJoin('reviews as r', 'r.id', 'm.review_id')
      .selectAll('m')
      .select(['r.received_rows', 'r.name'])
      .where('m.review_id', '=', slot.review_id)
      .executeTakeFirst();
    if (!monitor) return undefined;
    // A run started since the slot was claimed is its own: the claimer that started it died before saying so.
    const started = await this.db
      .selectFrom('review_runs')
      .select('run')
      .where('review_id', '=', slot.review_id)
      .where('started_at', '>=', Number(slot.claimed_at))
      .orderBy('run')
      .executeTakeFirst();
    return {
      monitor,
      startedRun: started ? Number(started.run) : undefined,
      used: await this.usedThisMonth(this.db, monitor),
    };
  }

  /**
   * The slot's outcome: its run started (the monitor's last run now), or why none was. Only while `owner` holds
   * the slot: a replica whose lease ran out while it worked says nothing over the one that took the slot over.
   */
  async settle(
    slot: MonitorSlotsTable,
    owner: string,
    state: 'started' | 'busy' | 'capped' | 'gone' | 'refused',
    run: number | null,
  ): Promise<void> {
    const now = this.now();
    const settled = await this.db
      .updateTable('monitor_slots')
      .set({ state, run, lease_owner: null, decided_at: run === null ? now : null })
      .where('review_id', '=', slot.review_id)
      .where('scheduled_at', '=', Number(slot.scheduled_at))
      .where('state', '=', 'claimed')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    if (state === 'started' && Number(settled.numUpdatedRows) === 1)
      await this.db
        .updateTable('monitors')
        .set({ last_run_at: now })
        .where('review_id', '=', slot.review_id)
        .execute();
  }

  /**
   * Pauses the monitor: the month's cap would be passed, or its row cannot be read ('unreadable': it would
   * otherwise stay first among the due and fail every pass). Saving it again resumes it.
   */
  async pause(reviewId: string, reason: 'cap_reached' | 'unreadable'): Promise<void> {
    await this.db
      .updateTable('monitors')
      .set({ paused_reason: reason, paused_at: this.now() })
      .where('review_id', '=', reviewId)
      .execute();
  }

  /**
   * Resumes the monitors paused by their monthly cap whose month (in their time zone, as their schedule) has
   * turned since: their next run the first scheduled time from now. Each once across replicas: the UPDATE repeats
   * the pause it read, so a second replica's changes nothing; with `audited`, the entry (`monitor_started`, the
   * monitor's creator, "resumed: ...") commits with it. Answers the monitors resumed now.
   */
  async resumeCapped(
    audited: boolean,
    onUnreadable: (m: MonitorsTable, why: string) => void = () => {},
    limit = 100,
  ): Promise<MonitorsTable[]> {
    const now = this.now();
    // The earliest paused first: the ones of a month gone by come before this month's.
    const paused = await this.db
      .selectFrom('monitors')
      .selectAll()
      .where('paused_reason', '=', 'cap_reached')
      .where('paused_at', 'is not', null)
      .orderBy('paused_at')
      .limit(limit)
      .execute();
    const resumed: MonitorsTable[] = [];
    for (const m of paused) {
      const why = unreadable(m);
      if (why) {
        await this.pause(m.review_id, 'unreadable');
        onUnreadable(m, why);
        continue;
      }
      const pausedAt = Number(m.paused_at);
      if (pausedAt >= monthStart(now, m.time_zone)) continue;
      const won = await this.db.transaction().execute(async (trx) => {
        const done = await trx
          .updateTable('monitors')
          .set({ paused_reason: null, paused_at: null, next_run_at: nextRunAfter(this.#schedule(m), now) })
          .where('review_id', '=', m.review_id)
          .where('paused_reason', '=', 'cap_reached')
          .where('paused_at', '=', pausedAt)
          .executeTakeFirst();
        if (Number(done.numUpdatedRows) !== 1) return false;
        if (audited) await insertForChange(trx, [resumedEntry(m, now)]);
        return true;
      });
      if (won) resumed.push(m);
    }
    return resumed;
  }

  /** A review deleted under its monitor: the monitor goes too. */
  async forget(reviewId: string): Promise<void> {
    await this.db.deleteFrom('monitors').where('review_id', '=', reviewId).execute();
  }
}

/** A monitor resumed at its month's turn: nobody's session did it; the monitor's creator is named. */
function resumedEntry(m: MonitorsTable, at: number): NewAuditEntry {
  return {
    at,
    account_id: m.account_id,
    key_fingerprint: m.created_by,
    session_ref: null,
    kind: 'monitor_started',
    query: `resumed: a new month (${m.time_zone}), ${Number(m.monthly_cap)} lookups`,
    outcome: 'ok',
    ...NOT_A_LOOKUP,
    review_id: m.review_id,
    row_index: null,
  };
}
