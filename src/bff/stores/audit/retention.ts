import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.ts';

/**
 * Retention: removes entries older than `cutoff` (epoch ms) from the start of the chain, a batch at a time, and
 * moves the chain's start past them (the last one's id and hash, and how many went), so the entries left still
 * verify. The start only: an entry is older than a newer one before it by the seconds its lookup took at most,
 * and goes at the next sweep. Returns how many went.
 */
export async function deleteOlderThan(
  db: Kysely<DatabaseSchema>,
  postgres: boolean,
  cutoff: number,
  batch: number,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await db.transaction().execute(async (trx) => {
      // Locked as an append locks it (PostgreSQL): the start moves while nobody appends.
      let base = trx.selectFrom('audit_chain').select('base_id').where('id', '=', 1);
      if (postgres) base = base.forUpdate();
      const { base_id } = await base.executeTakeFirstOrThrow();
      const rows = await trx
        .selectFrom('audit_entries')
        .select(['id', 'at', 'hash'])
        .where('id', '>', base_id)
        .orderBy('id')
        .limit(batch)
        .execute();
      const newer = rows.findIndex((r) => Number(r.at) >= cutoff);
      const gone = newer === -1 ? rows : rows.slice(0, newer);
      const last = gone.at(-1);
      if (last === undefined) return 0;
      await trx.deleteFrom('audit_entries').where('id', '<=', last.id).execute();
      await trx
        .updateTable('audit_chain')
        .set((eb) => ({
          base_id: last.id,
          base_hash: last.hash,
          base_count: eb('base_count', '+', gone.length),
        }))
        .where('id', '=', 1)
        .execute();
      return gone.length;
    });
    removed += n;
    if (n < batch) return removed;
  }
}
