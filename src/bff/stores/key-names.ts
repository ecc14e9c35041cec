import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';

/**
 * The names an account's people gave their keys, by the key's fingerprint (never the key): "Dana Ortiz" beside
 * "key 3f9a1c2e" in reviews, History, Activity and exports. One name per key; an empty name takes it off.
 */
export class SqlKeyNames {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(accountId: string, fingerprint: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('key_names')
      .select('name')
      .where('account_id', '=', accountId)
      .where('key_fingerprint', '=', fingerprint)
      .executeTakeFirst();
    return row?.name ?? null;
  }

  /** Names the key (an empty name removes it); the name as kept after. */
  async set(accountId: string, fingerprint: string, name: string): Promise<string | null> {
    const trimmed = name.trim();
    if (trimmed === '') {
      await this.db
        .deleteFrom('key_names')
        .where('account_id', '=', accountId)
        .where('key_fingerprint', '=', fingerprint)
        .execute();
      return null;
    }
    await this.db
      .insertInto('key_names')
      .values({ account_id: accountId, key_fingerprint: fingerprint, name: trimmed, named_at: this.now() })
      .onConflict((oc) =>
        oc.columns(['account_id', 'key_fingerprint']).doUpdateSet({ name: trimmed, named_at: this.now() }),
      )
      .execute();
    return trimmed;
  }

  /** Every named key of the account, most recently named first (an account has a handful of keys). */
  async all(accountId: string): Promise<{ fingerprint: string; name: string }[]> {
    const rows = await this.db
      .selectFrom('key_names')
      .select(['key_fingerprint', 'name'])
      .where('account_id', '=', accountId)
      .orderBy('named_at', 'desc')
      .limit(1_000)
      .execute();
    return rows.map((r) => ({ fingerprint: r.key_fingerprint, name: r.name }));
  }
}
