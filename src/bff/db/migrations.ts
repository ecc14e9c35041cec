import { type Kysely, type Migration, sql } from 'kysely';
import { searchTextOf } from '../stores/audit/search-text.ts';
import { MIGRATIONS_0008_ON } from './migrations-0008-on.ts';

/*
 * Versioned migrations, run at start by Kysely's Migrator (database.ts), never by hand. Append only: a
 * released migration is never edited; a change is a new one. The same DDL runs on SQLite and PostgreSQL, so
 * types are the portable ones (text, integer, bigint); `id` of the audit trail is the one dialect difference.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

const reviews: Migration = {
  async up(db: Db) {
    await createReviewTables(db);
    await createRunTables(db);
  },
};

/** A review, the chunks it was uploaded in and its rows as uploaded. */
async function createReviewTables(db: Db) {
  await db.schema
    .createTable('reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('client_token', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('origin', 'text')
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    .addColumn('received_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_blank', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('reviews_client_token', ['account_id', 'client_token'])
    .execute();
  await db.schema
    .createIndex('reviews_by_account')
    .on('reviews')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('review_chunks')
    .addColumn('review_id', 'text', (c) => c.notNull())
    .addColumn('chunk_index', 'integer', (c) => c.notNull())
    .addColumn('rows', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('review_chunks_pk', ['review_id', 'chunk_index'])
    .execute();
  await db.schema
    .createTable('review_rows')
    .addColumn('review_id', 'text', (c) => c.notNull())
    .addColumn('row_index', 'integer', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('cells', 'text')
    .addColumn('imported', 'text')
    .addPrimaryKeyConstraint('review_rows_pk', ['review_id', 'row_index'])
    .execute();
}

/** Each run of a review (a first check, a check again) and each row's answer in it. */
async function createRunTables(db: Db) {
  await db.schema
    .createTable('review_runs')
    .addColumn('review_id', 'text', (c) => c.notNull())
    .addColumn('run', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('fresh', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('matched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('not_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ambiguous', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('review_runs_pk', ['review_id', 'run'])
    .execute();
  await db.schema
    .createTable('review_results')
    .addColumn('review_id', 'text', (c) => c.notNull())
    .addColumn('run', 'integer', (c) => c.notNull())
    .addColumn('row_index', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('not_before', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('outcome', 'text')
    .addColumn('result', 'text')
    .addColumn('seq', 'bigint')
    .addPrimaryKeyConstraint('review_results_pk', ['review_id', 'run', 'row_index'])
    .execute();
  // The worker's question: work of these accounts that is due.
  await db.schema
    .createIndex('review_results_due')
    .on('review_results')
    .columns(['account_id', 'state', 'not_before'])
    .execute();
  // A live view's question: what was answered since N.
  await db.schema
    .createIndex('review_results_seq')
    .on('review_results')
    .columns(['review_id', 'seq'])
    .execute();
}

const audit = (postgres: boolean): Migration => ({
  async up(db: Db) {
    await db.schema
      .createTable('audit_entries')
      .addColumn('id', postgres ? 'bigserial' : 'integer', (c) =>
        postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key_fingerprint', 'text', (c) => c.notNull())
      .addColumn('session_ref', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('query', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('property_id', 'text')
      .addColumn('source', 'text')
      .addColumn('confidence', 'text')
      .addColumn('last_verified', 'text')
      .addColumn('cached', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cached_at', 'bigint')
      .addColumn('upstream_request_id', 'text')
      .addColumn('review_id', 'text')
      .addColumn('row_index', 'integer')
      .execute();
    await db.schema
      .createIndex('audit_by_account')
      .on('audit_entries')
      .columns(['account_id', 'id'])
      .execute();
    await db.schema
      .createIndex('audit_by_property')
      .on('audit_entries')
      .columns(['account_id', 'property_id', 'id'])
      .execute();
    await db.schema.createIndex('audit_by_time').on('audit_entries').columns(['at']).execute();
  },
});

/** A row fixed in place by a reviewer: what is looked up instead of the input, by whom and when (JSON). */
const rowFixes: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('review_rows').addColumn('fix', 'text').execute();
  },
};

/**
 * A run paused or cancelled by a reviewer (issue 26): when, on the run (who is in the audit trail). Rows waiting in
 * a paused run are 'paused', never asked rows of a cancelled one 'cancelled'; the lease takes neither. A row the
 * worker puts back ('leased' to 'pending', a rate-limit wait) while its run is paused or cancelled is turned
 * 'paused' or 'cancelled' by a trigger, whichever query put it back. On PostgreSQL the trigger reads the run
 * FOR SHARE: a Pause updating the run waits for it, or it waits for the Pause and sees the run paused.
 */
const reviewControls = (postgres: boolean): Migration => ({
  async up(db: Db) {
    await db.schema.alterTable('review_runs').addColumn('paused_at', 'bigint').execute();
    await db.schema.alterTable('review_runs').addColumn('cancelled_at', 'bigint').execute();
    if (postgres) {
      await sql`
        create function review_results_held() returns trigger language plpgsql as $$
        declare held text;
        begin
          select case when cancelled_at is not null then 'cancelled' when paused_at is not null then 'paused' end
            into held from review_runs where review_id = new.review_id and run = new.run for share;
          if held is not null then new.state := held; end if;
          return new;
        end $$`.execute(db);
      await sql`
        create trigger review_results_held before update of state on review_results for each row
        when (new.state = 'pending' and old.state = 'leased') execute function review_results_held()`.execute(
        db,
      );
    } else {
      await sql`
        create trigger review_results_held after update of state on review_results
        when new.state = 'pending' and old.state = 'leased'
        begin
          update review_results set state = (
            select case when u.cancelled_at is not null then 'cancelled' else 'paused' end
            from review_runs u where u.review_id = new.review_id and u.run = new.run)
          where review_id = new.review_id and run = new.run and row_index = new.row_index
            and exists (select 1 from review_runs u where u.review_id = new.review_id and u.run = new.run
              and (u.paused_at is not null or u.cancelled_at is not null));
        end`.execute(db);
    }
  },
});

/**
 * The worker's next rows without sorting the backlog (issue 26): partial indexes, so each holds only the rows
 * its question is about, whatever the backlog (a million pending rows cost one index seek per review):
 * - a run's pending rows, first come first served (by when each became due, then by row): `state = 'pending'`
 *   only, so done rows and rows of any other state (a paused or cancelled review's) are never even looked at;
 * - leases that may have run out (a few per replica at most);
 * - runs not finished yet, with the reviews the worker goes round.
 * Queries name the state as a literal (sql.lit): SQLite uses a partial index only for a term it can match.
 */
const leasing: Migration = {
  async up(db: Db) {
    await db.schema
      .createIndex('review_results_next')
      .on('review_results')
      .columns(['review_id', 'run', 'not_before', 'row_index'])
      .where(sql.ref('state'), '=', 'pending')
      .execute();
    await db.schema
      .createIndex('review_results_leased')
      .on('review_results')
      .columns(['lease_until'])
      .where(sql.ref('state'), '=', 'leased')
      .execute();
    await db.schema
      .createIndex('review_runs_open')
      .on('review_runs')
      .columns(['review_id', 'run'])
      .where(sql.ref('finished_at'), 'is', null)
      .execute();
  },
};

/**
 * The Activity text filter without reading the trail (issue 26): a trigram index of the two columns it searches,
 * the address asked (`query`) and the property id, so "contains this text" is an index lookup of the text's
 * trigrams, found or not, at any size of trail. Case-insensitive as the filter is.
 * - SQLite: a contentless FTS5 table (the text is already in audit_entries; contentless_delete lets retention
 *   remove a row by id) with the `trigram` tokenizer, its rowid the entry's id. Read newest first by rowid, so a
 *   text on every entry stops after the page, and a text on none reads nothing. It follows the trail rather than
 *   being written with each entry: a trigger on insert tripled the cost of the commit every lookup's answer waits
 *   for (ADR 011), so the trail's follower (SqlAuditStore.follow) indexes new entries in batches, and
 *   `audit_search_indexed` holds the last id it indexed; the filter reads entries above it without the index.
 *   Existing entries are indexed here; retention's deletes leave the index by a trigger (rare, and in batches).
 * - PostgreSQL: pg_trgm GIN indexes on the lowered columns, which serve the filter's `lower(x) like '%…%'`
 *   (GIN's fastupdate, the default, keeps an append's share small: a pending list merged in bulk).
 * Trigrams cannot serve a text of one or two characters: the store reads the trail newest first for those.
 */
const auditSearch = (postgres: boolean): Migration => ({
  async up(db: Db) {
    if (postgres) {
      await sql`create extension if not exists pg_trgm`.execute(db);
      for (const column of ['query', 'property_id'])
        await sql`create index ${sql.id(`audit_${column}_trgm`)} on audit_entries
          using gin (lower(${sql.ref(column)}) gin_trgm_ops)`.execute(db);
      return;
    }
    await sql`create virtual table audit_search using fts5(
      query, property_id, content = '', contentless_delete = 1, tokenize = 'trigram')`.execute(db);
    await sql`insert into audit_search (rowid, query, property_id)
      select id, query, property_id from audit_entries
      where query is not null or property_id is not null`.execute(db);
    await sql`create table audit_search_indexed (last_id integer not null)`.execute(db);
    await sql`insert into audit_search_indexed (last_id)
      select coalesce(max(id), 0) from audit_entries`.execute(db);
    await sql`create trigger audit_search_remove after delete on audit_entries
      when old.query is not null or old.property_id is not null
      begin
        delete from audit_search where rowid = old.id;
      end`.execute(db);
  },
});

/**
 * One folding rule for the Activity text filter (issue 26, review finding F2): each entry's address asked and
 * property id, folded in JS as it is written (stores/audit/search-text.ts), in a column of their own,
 * `search_text`, which the filter and its indexes read instead of lower(): SQLite's lower() folded ASCII only and
 * the FTS5 index all of Unicode, so ÉTÉ was found a second after it was written and never by two characters, and
 * PostgreSQL in the C locale never found it. Existing entries are folded here, a batch of ids at a time.
 * - SQLite: the trigram index is made again over `search_text`, folding nothing itself (case_sensitive 1), the
 *   entries up to now indexed here and the follower's mark moved past them; the trigger that removes an entry
 *   from it keyed on the new column.
 * - PostgreSQL: one pg_trgm GIN index on `search_text` in place of the two on lower(query), lower(property_id).
 * On SQLite in one transaction (Kysely's migrator opens none there): an upgrade that dies half-way leaves 0006's
 * schema, and the next start runs this again.
 */
const searchText = (postgres: boolean): Migration => ({
  async up(db: Db) {
    if (postgres) return foldTrail(db, postgres);
    await db.transaction().execute((trx) => foldTrail(trx, postgres));
  },
});

async function foldTrail(db: Db, postgres: boolean) {
  await db.schema.alterTable('audit_entries').addColumn('search_text', 'text').execute();
  for (let after = 0; ; ) {
    const rows: { id: number | string; query: string | null; property_id: string | null }[] = await db
      .selectFrom('audit_entries')
      .select(['id', 'query', 'property_id'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(FOLD_BATCH)
      .execute();
    const last = rows.at(-1);
    if (last === undefined) break;
    after = Number(last.id);
    const folded = rows.flatMap((r) => {
      const text = searchTextOf(r);
      return text === null ? [] : [sql`(${Number(r.id)}, ${text})`];
    });
    if (folded.length === 0) continue;
    await (postgres
      ? sql`update audit_entries as a set search_text = v.t
          from (values ${sql.join(folded)}) as v(id, t) where a.id = v.id::bigint`
      : sql`update audit_entries set search_text = v.column2
          from (values ${sql.join(folded)}) as v where audit_entries.id = v.column1`
    ).execute(db);
  }
  if (postgres) {
    await sql`drop index audit_query_trgm`.execute(db);
    await sql`drop index audit_property_id_trgm`.execute(db);
    await sql`create index audit_search_trgm on audit_entries using gin (search_text gin_trgm_ops)`.execute(
      db,
    );
    return;
  }
  await sql`drop trigger audit_search_remove`.execute(db);
  await sql`drop table audit_search`.execute(db);
  await sql`create virtual table audit_search using fts5(
    search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`.execute(db);
  await sql`insert into audit_search (rowid, search_text)
    select id, search_text from audit_entries where search_text is not null`.execute(db);
  await sql`update audit_search_indexed set last_id = (select coalesce(max(id), 0) from audit_entries)`.execute(
    db,
  );
  await sql`create trigger audit_search_remove after delete on audit_entries
    when old.search_text is not null
    begin
      delete from audit_search where rowid = old.id;
    end`.execute(db);
}

/** Entries folded per update by migration 0007 (two parameters each: well within either database's limit). */
const FOLD_BATCH = 1_000;

export type Dialect = 'sqlite' | 'postgres';

/** Every migration, by name; names sort in the order they run. */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-reviews': reviews,
    '0002-audit-trail': audit(dialect === 'postgres'),
    '0003-review-row-fixes': rowFixes,
    '0004-fair-leasing': leasing,
    '0005-review-controls': reviewControls(dialect === 'postgres'),
    '0006-activity-search': auditSearch(dialect === 'postgres'),
    '0007-activity-search-text': searchText(dialect === 'postgres'),
    ...MIGRATIONS_0008_ON,
  };
}
