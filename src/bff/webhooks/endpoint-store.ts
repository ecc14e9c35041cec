import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { WebhookEndpoint, WebhookEventType } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { type SecretKeeping, WebhookSecrets } from './secrets.ts';
import type { WebhookEndpointsTable } from './tables.ts';

type Db = Kysely<DatabaseSchema>;

/** Whose endpoints a caller sees: the account's, or, for a public demo visitor, the ones that visitor added. */
export interface EndpointScope {
  accountId: string;
  /** The demo visitor's key fingerprint; null for a real account. */
  visitor: string | null;
}

/** A new signing secret, as Standard Webhooks writes one: `whsec_` and 24 random bytes in base64. */
export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const newId = () => `ep_${randomBytes(12).toString('hex')}`;

/**
 * No endpoint is added, nor secret rotated, where no secret can be sealed (replicas sharing a database without
 * KEY_ENCRYPTION_SECRET): a secret kept in clear is what an attacker with the database alone would sign with.
 */
export class SecretsUnavailable extends Error {
  constructor(why: string) {
    super(
      `${why} Webhook signing secrets are sealed under that secret too, so no endpoint can be added (nor its secret changed) until it is set; endpoints added before keep working.`,
    );
  }
}

/** An endpoint just added or given a new secret, with that secret in clear: for the one answer that shows it. */
export interface WithSecret {
  row: WebhookEndpointsTable;
  secret: string;
}

/** The endpoint as the API shows it: never its secret. */
export function toEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    enabled: row.enabled === 1,
    createdBy: row.created_by,
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

/**
 * An account's webhook endpoints. Every call names the account: an endpoint of another account is not found.
 * The secret is sealed here (secrets.ts) and opened only by the dispatcher's lease (outbox-store.ts); in clear
 * it leaves only in the one answer that shows it.
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly secrets: SecretKeeping,
  ) {}

  /** A new secret for endpoint `id`: in clear, and sealed to store. */
  #newSecret(id: string): { secret: string; sealed: string } {
    if (!(this.secrets instanceof WebhookSecrets)) throw new SecretsUnavailable(this.secrets.unavailable);
    const secret = newSecret();
    return { secret, sealed: this.secrets.seal(id, secret) };
  }

  /**
   * Seals the secrets stored in clear before sealing existed (a start with a server secret; any replica may run
   * it at once: a row changes only while it still holds the clear secret read). Answers how many were sealed.
   */
  async sealClearSecrets(): Promise<number> {
    const { secrets } = this;
    if (!(secrets instanceof WebhookSecrets)) return 0;
    const clear = await this.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret'])
      .where('secret', 'not like', 'sealed:%')
      .execute();
    let sealed = 0;
    for (const row of clear) {
      const done = await this.db
        .updateTable('webhook_endpoints')
        .set({ secret: secrets.seal(row.id, row.secret) })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .executeTakeFirst();
      sealed += Number(done.numUpdatedRows);
    }
    return sealed;
  }

  /** The scope's endpoints (a query to narrow further). */
  #in(scope: EndpointScope) {
    return this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .$if(scope.visitor !== null, (q) => q.where('visitor', '=', scope.visitor));
  }

  async list(scope: EndpointScope): Promise<WebhookEndpointsTable[]> {
    return this.#in(scope).orderBy('created_at').orderBy('id').execute();
  }

  async get(scope: EndpointScope, id: string): Promise<WebhookEndpointsTable | undefined> {
    return this.#in(scope).where('id', '=', id).executeTakeFirst();
  }

  async create(
    scope: EndpointScope,
    input: { url: string; events: WebhookEventType[]; createdBy: string },
  ): Promise<WithSecret> {
    const id = newId();
    const { secret, sealed } = this.#newSecret(id);
    const row: WebhookEndpointsTable = {
      id,
      account_id: scope.accountId,
      url: input.url,
      events: JSON.stringify([...new Set(input.events)]),
      enabled: 1,
      secret: sealed,
      created_by: input.createdBy,
      created_at: this.now(),
      visitor: scope.visitor,
    };
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    return { row, secret };
  }

  /** Turns it on or off, or changes its events; the endpoint after, or undefined when there is none. */
  async update(
    scope: EndpointScope,
    id: string,
    change: { enabled?: boolean | undefined; events?: WebhookEventType[] | undefined },
  ): Promise<WebhookEndpointsTable | undefined> {
    if (!(await this.get(scope, id))) return undefined;
    const set: Partial<WebhookEndpointsTable> = {};
    if (change.enabled !== undefined) set.enabled = change.enabled ? 1 : 0;
    if (change.events !== undefined) set.events = JSON.stringify([...new Set(change.events)]);
    if (Object.keys(set).length > 0)
      await this.db
        .updateTable('webhook_endpoints')
        .set(set)
        .where('account_id', '=', scope.accountId)
        .where('id', '=', id)
        .execute();
    return this.get(scope, id);
  }

  /** A new secret, from now on (messages already queued are signed with it too, at their next attempt). */
  async rotateSecret(scope: EndpointScope, id: string): Promise<WithSecret | undefined> {
    if (!(await this.get(scope, id))) return undefined;
    const { secret, sealed } = this.#newSecret(id);
    await this.db
      .updateTable('webhook_endpoints')
      .set({ secret: sealed })
      .where('account_id', '=', scope.accountId)
      .where('id', '=', id)
      .execute();
    const row = await this.get(scope, id);
    return row && { row, secret };
  }

  /** Removes the endpoint with its outbox and delivery log; false when there was none. */
  async delete(scope: EndpointScope, id: string): Promise<boolean> {
    if (!(await this.get(scope, id))) return false;
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('webhook_endpoints')
        .where('account_id', '=', scope.accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return false;
      await trx
        .deleteFrom('webhook_attempts')
        .where('outbox_id', 'in', (eb) =>
          eb.selectFrom('webhook_outbox').select('id').where('endpoint_id', '=', id),
        )
        .execute();
      await trx.deleteFrom('webhook_outbox').where('endpoint_id', '=', id).execute();
      return true;
    });
  }
}
