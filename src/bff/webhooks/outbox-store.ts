import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { WEBHOOK_TEST_EVENT, WebhookEventType } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { LeaseOrder } from '../stores/reviews/lease-order.ts';
import { type SecretKeeping, signingSecret } from './secrets.ts';
import type { AttemptResult } from './sender.ts';
import type { WebhookOutboxTable } from './tables.ts';

type Db = Kysely<DatabaseSchema>;

/** Accounts with due messages looked at by one lease (the rest wait for the next: rows are leased a few at a time). */
const ACCOUNTS_A_LEASE = 1_000;

/** How long an event is tried before it is given up (`failed`). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** How long the delivery log keeps an event that was delivered or given up. */
export const KEEP_MS = 30 * 24 * 3_600_000;

export const newMessageId = () => `msg_${randomBytes(12).toString('hex')}`;

/** An event one endpoint is to be sent, with what its attempt needs (leased by one dispatcher). */
export interface LeasedMessage {
  id: string;
  endpointId: string;
  accountId: string;
  url: string;
  /** The signing secret, opened; null when it does not open (sealed under another server secret). */
  secret: string | null;
  payload: string;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  retryUntil: number;
}

/** What becomes of a message after an attempt: delivered, tried again at a time, or given up. */
export type AfterAttempt =
  | { state: 'delivered'; at: number }
  | { state: 'pending'; nextAttemptAt: number }
  | { state: 'failed' };

/**
 * The outbox: one row per event per endpoint, written before anything is sent, so an event is never lost to a
 * restart; a row is leased by one dispatcher at a time with a conditional UPDATE (only a row still due, or whose
 * lease ran out, changes hands), so two replicas never send one event at once, and a replica killed mid-attempt
 * leaves a lease another takes when it runs out.
 */
export class WebhookOutbox {
  /** Whose turn it is: remembered across leases, so ties go round rather than to the same account each time. */
  readonly #order = new LeaseOrder();

  constructor(
    readonly db: Db,
    private readonly now: () => number,
    private readonly secrets: SecretKeeping,
  ) {}

  /**
   * Queues an event for each enabled endpoint of the account subscribed to `type` (or for the one endpoint named,
   * whatever it subscribes to: the test event). `dedupeKey` names the event: enqueued again (another replica, a
   * retry), it is kept once per endpoint. A demo visitor's endpoint gets it only when `owner` (the fingerprint of
   * the key that started the review it is about; by default the starter of the review `data.reviewId` names) is
   * that visitor. Answers the ids of the rows queued now.
   */
  async enqueue(
    accountId: string,
    type: WebhookEventType | typeof WEBHOOK_TEST_EVENT,
    data: Record<string, unknown>,
    dedupeKey: string,
    { only, owner }: { only?: { endpointId: string }; owner?: string } = {},
  ): Promise<string[]> {
    let q = this.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'events', 'visitor'])
      .where('account_id', '=', accountId);
    q = only ? q.where('id', '=', only.endpointId) : q.where('enabled', '=', 1);
    const subscribed = (await q.execute()).filter(
      (e) => only || (JSON.parse(e.events) as string[]).includes(type),
    );
    const by = subscribed.some((e) => e.visitor !== null)
      ? (owner ?? (await this.#starter(accountId, data)))
      : owner;
    const endpoints = subscribed.filter((e) => only || e.visitor === null || e.visitor === by);
    if (endpoints.length === 0) return [];
    const now = this.now();
    const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
    const rows = endpoints.map((e) => newRow(e.id, accountId, type, payload, dedupeKey, now));
    return this.insert(rows);
  }

  /** Who started the review the event is about (its `reviewId`), if it names one of the account's. */
  async #starter(accountId: string, data: Record<string, unknown>): Promise<string | undefined> {
    if (typeof data.reviewId !== 'string') return undefined;
    const review = await this.db
      .selectFrom('reviews')
      .select('created_by')
      .where('id', '=', data.reviewId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return review?.created_by;
  }

  /** Inserts rows, keeping the first of each endpoint and dedupe key; the ids actually inserted. */
  async insert(rows: WebhookOutboxTable[]): Promise<string[]> {
    if (rows.length === 0) return [];
    const inserted = await this.db
      .insertInto('webhook_outbox')
      .values(rows)
      .onConflict((oc) => oc.columns(['endpoint_id', 'dedupe_key']).doNothing())
      .returning('id')
      .execute();
    return inserted.map((r) => r.id);
  }

  /**
   * Up to `limit` due messages of enabled endpoints, leased to `owner` until now + leaseMs: pending ones whose
   * time has come, and ones whose lease ran out (a dispatcher that died mid-attempt). Round-robin over accounts
   * (LeaseOrder, as the review worker's): one account's backlog of 500 events does not delay another's one, and an
   * account whose attempts this replica already holds (`held`, by account: a slow receiver) comes after those
   * holding fewer, and gets at most `perAccount` at once. Within an account, the earliest due first. Each row
   * is taken by an UPDATE that repeats the condition: on PostgreSQL a second dispatcher's UPDATE of the same row
   * waits for the first and then finds it no longer due, so it takes nothing.
   */
  async lease(
    owner: string,
    limit: number,
    leaseMs: number,
    {
      held = new Map<string, number>(),
      perAccount = limit,
    }: { held?: ReadonlyMap<string, number>; perAccount?: number } = {},
  ): Promise<LeasedMessage[]> {
    const now = this.now();
    const accounts = await this.#due(now).select('o.account_id').distinct().limit(ACCOUNTS_A_LEASE).execute();
    const runs = accounts.map(({ account_id }) => ({ reviewId: account_id, run: 0, accountId: account_id }));
    const limitByAccount = new Map(
      accounts.map(({ account_id }) => [account_id, Math.max(0, perAccount - (held.get(account_id) ?? 0))]),
    );
    const due = await this.#order.pick(
      runs,
      limit,
      { heldByAccount: held, limitByAccount },
      {
        one: (run, n) =>
          this.#due(now)
            .select([
              'o.id',
              'o.endpoint_id',
              'o.account_id',
              'e.url',
              'e.secret',
              'o.payload',
              'o.attempts',
              'o.retry_until',
            ])
            .where('o.account_id', '=', run.accountId)
            .orderBy('o.next_attempt_at')
            .orderBy('o.id')
            .limit(n)
            .execute(),
      },
    );
    const leased: LeasedMessage[] = [];
    for (const row of due) {
      const taken = await this.db
        .updateTable('webhook_outbox')
        .set({
          state: 'sending',
          lease_owner: owner,
          lease_until: now + leaseMs,
          attempts: sql`attempts + 1`,
        })
        .where('id', '=', row.id)
        .where((eb) =>
          eb.or([
            eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
            eb.and([eb('state', '=', 'sending'), eb('lease_until', '<=', now)]),
          ]),
        )
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) continue;
      leased.push({
        id: row.id,
        endpointId: row.endpoint_id,
        accountId: row.account_id,
        url: row.url,
        secret: signingSecret(this.secrets, row.endpoint_id, row.secret),
        payload: row.payload,
        attempt: Number(row.attempts) + 1,
        retryUntil: Number(row.retry_until),
      });
    }
    return leased;
  }

  /** The outbox's due messages of enabled endpoints, now: pending and due, or leased by one whose lease ran out. */
  #due(now: number) {
    return this.db
      .selectFrom('webhook_outbox as o')
      .innerJoin('webhook_endpoints as e', 'e.id', 'o.endpoint_id')
      .where('e.enabled', '=', 1)
      .where((eb) =>
        eb.or([
          eb.and([eb('o.state', '=', 'pending'), eb('o.next_attempt_at', '<=', now)]),
          eb.and([eb('o.state', '=', 'sending'), eb('o.lease_until', '<=', now)]),
        ]),
      );
  }

  /**
   * Logs an attempt and, while the lease is still this owner's (same attempt), moves the message on. A lease
   * that ran out meanwhile belongs to another dispatcher now: the attempt is logged (it was made), the state
   * is theirs to write. Answers whether the state was written.
   */
  async finish(
    owner: string,
    message: LeasedMessage,
    result: AttemptResult,
    after: AfterAttempt,
  ): Promise<boolean> {
    const at = this.now();
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          outbox_id: message.id,
          attempt: message.attempt,
          at,
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
          response: result.response,
        })
        .onConflict((oc) => oc.columns(['outbox_id', 'attempt']).doNothing())
        .execute();
      const set =
        after.state === 'delivered'
          ? { state: 'delivered', delivered_at: after.at }
          : after.state === 'pending'
            ? { state: 'pending', next_attempt_at: after.nextAttemptAt }
            : { state: 'failed' };
      const moved = await trx
        .updateTable('webhook_outbox')
        .set({ ...set, lease_owner: null, lease_until: 0 })
        .where('id', '=', message.id)
        .where('state', '=', 'sending')
        .where('lease_owner', '=', owner)
        .where('attempts', '=', message.attempt)
        .executeTakeFirst();
      // An endpoint that fails waits as a whole: its other events due sooner wait as long, so a dead receiver with
      // a backlog costs a few attempts per back-off, not one per event, and the other endpoints' events go first.
      if (after.state === 'pending')
        await trx
          .updateTable('webhook_outbox')
          .set({ next_attempt_at: after.nextAttemptAt })
          .where('endpoint_id', '=', message.endpointId)
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<', after.nextAttemptAt)
          .execute();
      return Number(moved.numUpdatedRows) === 1;
    });
  }

  /**
   * Forgets up to `limit` delivered or given-up events created before `before`, with their attempts (the log keeps
   * KEEP_MS of them), read by the webhook_outbox_done index (migration 0023); answers how many. Pending ones stay
   * whatever their age: they are still owed.
   */
  async forget(before: number, limit = 500): Promise<number> {
    const old = await this.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where('state', 'in', ['delivered', 'failed'])
      .where('created_at', '<', before)
      .limit(limit)
      .execute();
    if (old.length === 0) return 0;
    // The events still delivered or given up when deleted, and the attempts of those only: one resent since it
    // was read is pending again, and keeps its row and its history (hostile review H16-5).
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('webhook_outbox')
        .where(
          'id',
          'in',
          old.map((r) => r.id),
        )
        .where('state', 'in', ['delivered', 'failed'])
        .returning('id')
        .execute();
      if (gone.length === 0) return 0;
      await trx
        .deleteFrom('webhook_attempts')
        .where(
          'outbox_id',
          'in',
          gone.map((r) => r.id),
        )
        .execute();
      return gone.length;
    });
  }

  /**
   * *Resend*: the same event (same `webhook-id`) gets one more attempt now. A delivered or given-up event gets that
   * one attempt only: if it fails it is `failed` again (no new 24 hours of retries). An event still being retried
   * keeps its window: Resend brings its next attempt forward and takes nothing from the retries after it (it had
   * set the window's end to now, so one failed Resend gave up an event with hours of retries left).
   * 'sending' while an attempt is under way (nothing changes), 'not_found'.
   */
  async resend(accountId: string, endpointId: string, id: string): Promise<'ok' | 'sending' | 'not_found'> {
    const now = this.now();
    const row = await this.db
      .selectFrom('webhook_outbox')
      .select('state')
      .where('id', '=', id)
      .where('endpoint_id', '=', endpointId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return 'not_found';
    const done = await this.db
      .updateTable('webhook_outbox')
      .set({
        state: 'pending',
        next_attempt_at: now,
        // SET reads the row as it was: `state` here is the state before this update.
        retry_until: sql<number>`case when state = 'pending' then retry_until else ${now} end`,
        delivered_at: null,
      })
      .where('id', '=', id)
      .where('state', '!=', 'sending')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 1) return 'ok';
    // Not updated: an attempt is under way, or the log's pruning removed it since it was read.
    const still = await this.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return still ? 'sending' : 'not_found';
  }
}

/** A new outbox row: due now, tried for RETRY_WINDOW_MS. */
export function newRow(
  endpointId: string,
  accountId: string,
  type: string,
  payload: string,
  dedupeKey: string,
  now: number,
): WebhookOutboxTable {
  return {
    id: newMessageId(),
    endpoint_id: endpointId,
    account_id: accountId,
    dedupe_key: dedupeKey,
    type,
    payload,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    retry_until: now + RETRY_WINDOW_MS,
    lease_owner: null,
    lease_until: 0,
    created_at: now,
    delivered_at: null,
  };
}
