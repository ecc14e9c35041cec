import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type MonitorPausedData, type ReviewChangedData, StoredChange } from '../../contract/index.ts';
import type { MonitorSlotsTable } from '../db/migration-0016-monitoring.ts';
import { ApiError } from '../errors.ts';
import type { DurableReviews } from '../reviews/durable-reviews.ts';
import type { Webhooks } from '../webhooks/index.ts';
import { readRules, type SqlMonitors, unreadable } from './monitor-store.ts';
import type { SqlNotifications } from './notifications.ts';
import { runChanges, worthAnAlert } from './run-changes.ts';

export interface MonitorSchedulerOptions {
  monitors: SqlMonitors;
  notifications: SqlNotifications;
  /** The reviews' store and worker: a scheduled run is their Check again (the worker is told of it). */
  reviews: Pick<DurableReviews, 'store' | 'database'> & { worker: Pick<DurableReviews['worker'], 'notify'> };
  /** REVIEW_MAX_PENDING_ROWS: a scheduled run counts against it as a person's Check again does. */
  maxPendingRows: number;
  /** Queues review.changed and monitor.paused for the account's endpoints (absent: no webhooks). */
  enqueue?: Webhooks['enqueue'];
  logger: Logger;
  /** The BFF's clock (clock.ts). */
  now: () => number;
  /** Called after the clock moves forward (a test's controllable clock): due slots are looked for at once. */
  onClockAdvance?: (listener: () => void) => () => void;
  /** How often this replica looks for due monitors and finished runs (default 5 s). */
  pollMs?: number;
  /** How long a claimed slot is this replica's before another may start its run (default 60 s). */
  leaseMs?: number;
  /** The audit trail is on: a monitor resumed at its month's turn is an entry. */
  audited?: boolean;
  /**
   * On the public demo (index.ts, from graph.ts): whether the key that set the monitor up has a live session.
   * Strangers share the demo account, so a visitor's monitor runs only while that visitor is there, never on
   * another visitor's key (hostile review M9); absent, any key of the account will do, as for a Check again.
   */
  ownKeyLive?: (accountId: string, fingerprint: string) => Promise<boolean>;
}

type SlotOutcome = Parameters<SqlMonitors['settle']>[2];

/**
 * The loop every replica runs: claims due monitors' slots (the slot's primary key lets one replica have each),
 * starts each claimed slot's run as a Check again, and once a run has finished compares it with the one before
 * and leaves an alert (and review.changed) when the monitor's rules count the change. Every step is read from
 * the database, so what a replica killed midway left is taken up by the next pass of any replica.
 */
export class MonitorScheduler {
  readonly owner = `ms_${randomBytes(6).toString('hex')}`;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #stopListening: (() => void) | undefined;

  constructor(private readonly o: MonitorSchedulerOptions) {}

  start(): void {
    if (this.#timer) return;
    this.#stopped = false;
    const poll = () => {
      // A pass under way when stop() came must not arm the next one.
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void this.tick().finally(poll), this.o.pollMs ?? 5_000);
      this.#timer.unref?.();
    };
    poll();
    this.#stopListening = this.o.onClockAdvance?.(() => void this.tick());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stopListening?.();
    await this.#running;
  }

  /** One pass (a pass asked for while one runs makes one more after it). */
  tick(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#pass();
      } while (this.#again);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(): Promise<void> {
    for (const [step, work] of [
      ['resume', () => this.resumeCapped()],
      ['claim', () => this.claimDue()],
      ['start', () => this.startClaimed()],
      ['decide', () => this.decideFinished()],
      ['send', () => this.sendAlerts()],
    ] as const) {
      // The database away: the next pass tries again; one step's failure does not stop the others.
      await work().catch((err: Error) =>
        this.o.logger.warn({ err: { name: err.name, message: err.message }, step }, 'monitoring pass failed'),
      );
    }
  }

  /** Resumes the monitors their monthly cap paused once their month has turned (in their zone). */
  async resumeCapped(): Promise<void> {
    const aside = (m: { review_id: string }, why: string) => this.#setAside('resume', m.review_id, why);
    for (const m of await this.o.monitors.resumeCapped(this.o.audited ?? false, aside))
      this.o.logger.info({ reviewId: m.review_id }, 'monitor resumed: a new month');
  }

  /** Claims a slot for each due monitor; the slots this replica won. */
  async claimDue(): Promise<number> {
    let won = 0;
    for (const m of await this.o.monitors.due()) {
      // One unreadable row is paused and passed over: it failed the whole step for every other monitor, each pass.
      const why = unreadable(m);
      if (why) {
        await this.o.monitors.pause(m.review_id, 'unreadable');
        this.#setAside('claim', m.review_id, why);
      } else if (await this.o.monitors.claim(m, this.owner, this.#leaseMs)) won++;
    }
    return won;
  }

  /** A monitor passed over because its row cannot be read: logged by review and reason, never its contents. */
  #setAside(step: string, reviewId: string, why: string): void {
    this.o.logger.warn({ step, reviewId, why }, 'monitor skipped: its row cannot be read');
  }

  get #leaseMs() {
    return this.o.leaseMs ?? 60_000;
  }

  /** Starts the run of each slot this replica holds, or whose lease ran out. */
  async startClaimed(): Promise<void> {
    for (const slot of await this.o.monitors.unstarted(this.owner)) {
      if (!(await this.o.monitors.lease(slot, this.owner, this.#leaseMs))) continue;
      const [outcome, run] = await this.#start(slot);
      await this.o.monitors.settle(slot, this.owner, outcome, run);
    }
  }

  async #start(slot: MonitorSlotsTable): Promise<[SlotOutcome, number | null]> {
    const why = await this.o.monitors.unreadableFor(slot.review_id);
    if (why) {
      await this.o.monitors.pause(slot.review_id, 'unreadable');
      this.#setAside('start', slot.review_id, why);
      return ['refused', null];
    }
    const now = await this.o.monitors.forStart(slot);
    if (!now) {
      // Stopped, or its review deleted (a demo visitor's, at sign-out): a monitor left over goes too.
      await this.o.monitors.forget(slot.review_id);
      return ['gone', null];
    }
    if (now.startedRun !== undefined) return ['started', now.startedRun];
    const { monitor } = now;
    if (this.o.ownKeyLive && !(await this.o.ownKeyLive(monitor.account_id, monitor.created_by))) {
      // This time is skipped, as one refused for the account's backlog: the next is tried as usual.
      this.o.logger.info(
        { reviewId: monitor.review_id },
        'monitor run skipped: its visitor is not signed in',
      );
      return ['refused', null];
    }
    if (now.used + Number(monitor.received_rows) > Number(monitor.monthly_cap)) {
      await this.o.monitors.pause(monitor.review_id, 'cap_reached');
      const data: MonitorPausedData = {
        reviewId: monitor.review_id,
        reason: 'cap_reached',
        message: `Monitoring of “${monitor.name}” is paused: its next run (${monitor.received_rows} rows) would pass this month’s cap of ${monitor.monthly_cap} lookups (${now.used} used).`,
      };
      await this.o.enqueue?.(
        monitor.account_id,
        'monitor.paused',
        data,
        `monitor.paused:${monitor.review_id}:${Number(slot.scheduled_at)}`,
      );
      return ['capped', null];
    }
    try {
      const started = await this.o.reviews.store.checkAgain(
        monitor.account_id,
        monitor.review_id,
        this.o.maxPendingRows,
      );
      if (started === undefined) {
        await this.o.monitors.forget(monitor.review_id);
        return ['gone', null];
      }
      if (started === 'busy') {
        // Busy with this slot's own run, started by a replica whose lease ran out meanwhile: it is the slot's.
        const again = await this.o.monitors.forStart(slot);
        return again?.startedRun === undefined ? ['busy', null] : ['started', again.startedRun];
      }
      this.o.reviews.worker.notify();
      return ['started', started.runs.at(-1)?.number ?? null];
    } catch (err) {
      // The account's backlog is full: this time is skipped, as a person's Check again would be refused.
      if (err instanceof ApiError && err.code === 'quota_exceeded') return ['refused', null];
      throw err;
    }
  }

  /** Compares each started slot's run, once finished, with the run before; an alert when its rules say so. */
  async decideFinished(): Promise<void> {
    const { db } = this.o.reviews.database;
    const finished = await db
      .selectFrom('monitor_slots as s')
      .innerJoin('review_runs as u', (j) =>
        j.onRef('u.review_id', '=', 's.review_id').onRef('u.run', '=', 's.run'),
      )
      .innerJoin('reviews as r', 'r.id', 's.review_id')
      .leftJoin('monitors as m', 'm.review_id', 's.review_id')
      .select([
        's.review_id',
        's.scheduled_at',
        's.run',
        'u.finished_at',
        'u.cancelled_at',
        'r.name',
        'r.account_id',
        'm.rules',
      ])
      .where('s.state', '=', 'started')
      .where('s.decided_at', 'is', null)
      .where('u.finished_at', 'is not', null)
      .limit(20)
      .execute();
    for (const f of finished) {
      const rules = f.rules ? readRules(f.rules) : undefined;
      // Rules that no longer read: decided with no alert (it would otherwise fail this step for every run).
      if (f.rules && !rules) this.#setAside('decide', f.review_id, 'its alert rules do not read');
      // Stopped since, or a run a person cancelled: decided, with no alert.
      const change =
        rules && f.cancelled_at === null
          ? await runChanges(
              db,
              { id: f.review_id, name: f.name },
              Number(f.run),
              rules,
              Number(f.finished_at),
            )
          : undefined;
      const alert = change && rules && worthAnAlert(change, rules) ? change : undefined;
      const id = await this.o.notifications.decide(f, f.account_id, alert);
      if (id)
        this.o.logger.info(
          { reviewId: f.review_id, run: f.run, rowsChanged: alert?.rowsChanged },
          'monitor alert',
        );
    }
  }

  /** Queues review.changed for each alert not queued yet (the outbox keeps one per dedupe key). */
  async sendAlerts(): Promise<void> {
    for (const n of await this.o.notifications.unsent()) {
      const stored = readChange(n.data);
      if (!stored) this.#setAside('send', n.review_id, 'its alert’s data does not read: no webhook for it');
      else if (this.o.enqueue) {
        const { rowsChanged: _n, ...data } = stored;
        await this.o.enqueue(
          n.account_id,
          'review.changed',
          data satisfies ReviewChangedData,
          `review.changed:${n.review_id}:${n.run}`,
        );
      }
      await this.o.notifications.sent(n.id);
    }
  }
}

/** An alert's stored change, or undefined when it does not read (it is then marked sent, with no webhook). */
function readChange(text: string): StoredChange | undefined {
  try {
    const parsed = StoredChange.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
