import type { Kysely, Migration } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before, and regardless of, the typed schema
type Db = Kysely<any>;

/**
 * Migration 0017 (issue 30): the file a review came from, as it was received, byte for byte, for its evidence
 * packet (`source/<name>`). One per review, written once. The bytes are base64 text: the same DDL on SQLite and
 * PostgreSQL (their binary types differ), a third larger, for files of at most 20 MB (MAX_REVIEW_BYTES).
 */
export const reviewSources: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('review_sources')
      .addColumn('review_id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/** A review's source file (migration 0017). */
export interface ReviewSourcesTable {
  review_id: string;
  /** The file's name as the browser gave it (its last part, no control characters). */
  name: string;
  size: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
  /** The bytes, base64. */
  content: string;
  received_at: number;
}
