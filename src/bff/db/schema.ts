import type { Generated } from 'kysely';
import type { CustodyKeysTable } from '../custody/custody-table.ts';
import type { AuditChainTable, AuditCheckpointsTable, EvidenceKeysTable } from '../evidence/tables.ts';
import type { WebhookAttemptsTable, WebhookEndpointsTable, WebhookOutboxTable } from '../webhooks/tables.ts';
import type { ReviewDecisionsTable } from './migration-0015-decisions.ts';
import type { MonitorSlotsTable, MonitorsTable, NotificationsTable } from './migration-0016-monitoring.ts';
import type { ReviewSourcesTable } from './migration-0017-review-sources.ts';

/*
 * The BFF's own database: durable reviews and the audit trail. One schema for the embedded SQLite and for
 * PostgreSQL, written by the migrations in migrations.ts. Times are epoch milliseconds (bigint); structured
 * values (a row's cells, a lookup's answer) are JSON text, read back through the contract's schemas.
 */

export interface ReviewsTable {
  id: string;
  account_id: string;
  /** Key fingerprint of who started it (never the key). */
  created_by: string;
  created_at: number;
  /** One start click of one tab: a retried create answers the same review. */
  client_token: string;
  name: string;
  kind: string;
  origin: string | null;
  /** JSON array of the uploaded file's header. */
  columns: string;
  total_rows: number;
  received_rows: number;
  skipped_blank: number;
  /** Last completion sequence number handed out (rows answered since N, for live views). */
  last_seq: number;
  /**
   * The fingerprint of a colleague's key the review's rows go on while its owner's key is not signed in (migration
   * 0010); null while they go on the owner's own key.
   */
  carried_by?: string | null;
  /** Sign-off and approval (migration 0015): keys' fingerprints, epoch ms, the reason rows were left undecided. */
  signed_off_by?: string | null;
  signed_off_at?: number | null;
  signed_off_reason?: string | null;
  approved_by?: string | null;
  approved_at?: number | null;
  /** The run signed off, and a demo visitor's sign-off's visitor (migration 0018). */
  signed_off_run?: number | null;
  signed_off_visitor?: string | null;
}

export interface ReviewChunksTable {
  review_id: string;
  chunk_index: number;
  rows: number;
}

export interface ReviewRowsTable {
  review_id: string;
  row_index: number;
  address: string;
  /** JSON array of the row's own cells, for CSV reviews. */
  cells: string | null;
  // The table also has an `imported` column (migration 0001), unused: only the BFF's own lookups answer a row.
  // It is dropped a release later, not now: replicas of the previous release, still up during an upgrade, write it.
  /** JSON RowFix: the address a reviewer looked up instead of `address` (which stays as given). */
  fix: string | null;
  /** The row's 1-based place in the file or paste it came from (migration 0008); null for rows uploaded before. */
  source_row: number | null;
  /** The parcel number uploaded with the row: looked up when `address` is blank. */
  parcel: string | null;
  /** What the row asks, normalised (addressKey; `parcel:` + the parcel number): its review's repeats share one lookup. */
  address_key: string | null;
  /** JSON RowExclusion while a reviewer has the row excluded from its review (migration 0011). */
  excluded: string | null;
  /** JSON RowDecision: the reviewer's current decision (migration 0015; every one is in review_decisions). */
  decision?: string | null;
}

export interface ReviewRunsTable {
  review_id: string;
  run: number;
  started_at: number;
  finished_at: number | null;
  /** 1: ask the service itself, not the cache (Check again). */
  fresh: number;
  total: number;
  done: number;
  matched: number;
  not_found: number;
  ambiguous: number;
  failed: number;
  /** A reviewer paused it (epoch ms); null while it runs or once resumed. */
  paused_at: number | null;
  /** A reviewer cancelled it (epoch ms): finished then, with its never-asked rows 'cancelled'. */
  cancelled_at: number | null;
}

export interface ReviewResultsTable {
  review_id: string;
  run: number;
  row_index: number;
  account_id: string;
  /** pending, leased, done; paused (its run is paused), cancelled (never asked: its run was cancelled). */
  state: string;
  lease_owner: string | null;
  lease_until: number;
  /**
   * A pending row is not leased before this time (back-off after a retryable failure); within a run, rows are
   * leased in the order they became due (not_before, then row_index), so a retried row goes behind the rest.
   */
  not_before: number;
  attempts: number;
  outcome: string | null;
  /** JSON of the answer (property, match, candidates, error, cached, retrievedAt). */
  result: string | null;
  seq: number | null;
}

export interface AuditEntriesTable {
  id: Generated<number>;
  at: number;
  account_id: string;
  key_fingerprint: string;
  session_ref: string | null;
  /** search, resolve, record, review_row, area_page, sign_in, sign_out, sign_in_refused. */
  kind: string;
  query: string | null;
  /** matched, not_found, ambiguous, refused, failed, rate_limited, ok. */
  outcome: string;
  property_id: string | null;
  source: string | null;
  confidence: string | null;
  last_verified: string | null;
  cached: number;
  cached_at: number | null;
  upstream_request_id: string | null;
  review_id: string | null;
  row_index: number | null;
  /** The fingerprint of the key that started the review a review row's lookup was made for (migration 0010). */
  review_owner?: string | null;
  /**
   * What the Activity text filter searches: the address asked and the property id, folded by
   * stores/audit/search-text.ts as the entry is written (migration 0007); null when it has neither.
   */
  search_text: string | null;
  /** The entry's place in the hash chain (migration 0012, stores/audit/chain.ts): the previous entry's hash, its own. */
  prev_hash: string;
  hash: string;
}

export interface DatabaseSchema {
  reviews: ReviewsTable;
  review_chunks: ReviewChunksTable;
  review_rows: ReviewRowsTable;
  review_runs: ReviewRunsTable;
  review_results: ReviewResultsTable;
  audit_entries: AuditEntriesTable;
  key_names: KeyNamesTable;
  audit_chain: AuditChainTable;
  audit_checkpoints: AuditCheckpointsTable;
  evidence_keys: EvidenceKeysTable;
  custody_keys: CustodyKeysTable;
  review_decisions: ReviewDecisionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_attempts: WebhookAttemptsTable;
  monitors: MonitorsTable;
  monitor_slots: MonitorSlotsTable;
  notifications: NotificationsTable;
  review_sources: ReviewSourcesTable;
}

/** A name a key's holder gave it (migration 0009): one per key of an account. */
export interface KeyNamesTable {
  account_id: string;
  key_fingerprint: string;
  name: string;
  named_at: number;
}
