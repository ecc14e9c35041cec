import type { Kysely, Migration } from 'kysely';
import { auditChain } from './migration-0012-audit-chain.ts';
import { keyCustody } from './migration-0013-key-custody.ts';
import { webhooks } from './migration-0014-webhooks.ts';
import { decisions } from './migration-0015-decisions.ts';
import { monitoring } from './migration-0016-monitoring.ts';
import { reviewSources } from './migration-0017-review-sources.ts';
import { signOffRun } from './migration-0018-sign-off-run.ts';
import { auditPropertyFollows } from './migration-0021-audit-property-follows.ts';
import { webhookSeeks } from './migration-0023-webhook-seeks.ts';
import { auditIndexFile } from './migration-0024-audit-index-file.ts';

/*
 * The migrations from 0008 on (migrations.ts has the rules: append only, the same DDL on both databases). Kept
 * apart so that neither file outgrows what one reads at once.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0008: every row of a file is kept, so a row carries where it was in the file (the export joins back by
 * it), the parcel number looked up when it has no address, and the key its address normalises to, by which a
 * review's repeats share one lookup however long ago it was made (the cache's TTL does not decide).
 */
const rowSources: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('review_rows').addColumn('source_row', 'integer').execute();
    await db.schema.alterTable('review_rows').addColumn('parcel', 'text').execute();
    await db.schema.alterTable('review_rows').addColumn('address_key', 'text').execute();
    await db.schema
      .createIndex('review_rows_by_key')
      .on('review_rows')
      .columns(['review_id', 'address_key'])
      .execute();
  },
};

/** Migration 0009: the names people give their keys ("Dana Ortiz"), shown beside the keys' fingerprints. */
const keyNames: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('key_names')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key_fingerprint', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('named_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('key_names_pk', ['account_id', 'key_fingerprint'])
      .execute();
  },
};

/**
 * Migration 0010: who did what. A review says whose key its rows go on when it is not its owner's, and a review
 * row's audit entry names the review's owner beside the key that made the lookup.
 */
const reviewOwners: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('reviews').addColumn('carried_by', 'text').execute();
    await db.schema.alterTable('audit_entries').addColumn('review_owner', 'text').execute();
  },
};

/**
 * Migration 0011: a reviewer can exclude a row from a review later (prose that slipped in, an office address
 * among the collateral): the row keeps its place and its answer, marked (JSON RowExclusion), and later runs do
 * not look it up.
 */
const rowExclusions: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('review_rows').addColumn('excluded', 'text').execute();
  },
};

/** Each migration from 0008 on, by name; names sort in the order they run. */
export const MIGRATIONS_0008_ON: Record<string, Migration> = {
  '0008-review-row-sources': rowSources,
  '0009-key-names': keyNames,
  '0010-review-owners': reviewOwners,
  '0011-review-row-exclusions': rowExclusions,
  '0012-audit-chain': auditChain,
  '0013-key-custody': keyCustody,
  '0014-webhooks': webhooks,
  '0015-decisions': decisions,
  '0016-monitoring': monitoring,
  '0017-review-sources': reviewSources,
  '0018-sign-off-run': signOffRun,
  '0021-audit-property-follows': auditPropertyFollows,
  '0023-webhook-seeks': webhookSeeks,
  '0024-audit-index-file': auditIndexFile,
};
