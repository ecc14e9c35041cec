import { hash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import canonicalize from 'canonicalize';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { auditUnavailable } from '../../audit/writer.ts';
import type { AuditEntriesTable, DatabaseSchema } from '../../db/schema.ts';
import type { NewAuditEntry } from './audit-rows.ts';
import { searchTextOf } from './search-text.ts';

/*
 * The audit trail's hash chain (migration 0012, docs/decisions/014-evidence-formats.md): each entry stores the
 * SHA-256 of its canonical form (RFC 8785 JSON of every column an auditor relies on, with the previous entry's
 * hash), so changing, removing or inserting an entry breaks the chain. The chain's order is the id order: ids are
 * handed out while the chain is held (one writer on SQLite; `audit_chain` locked FOR UPDATE on PostgreSQL), so a
 * later entry always has a higher id, whichever replica wrote it.
 */

/** The previous hash of the first entry ever written. */
export const GENESIS = '0'.repeat(64);

/** The canonical form's version: a new column or rule is a new version, and the old entries keep theirs. */
export const CHAIN_VERSION = 1;

/** An entry's columns the hash covers: all but the hash itself and the search text derived from the query. */
export type ChainedEntry = Omit<AuditEntriesTable, 'search_text' | 'hash' | 'id'> & {
  id: number | string;
  prev_hash: string;
};

const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));

/**
 * Well-formed text (RFC 8785 takes no other): a lone UTF-16 surrogate (a query may carry one) becomes U+FFFD. The
 * entry is written so (chained), for the databases would each keep it otherwise: PostgreSQL's driver as one
 * U+FFFD, SQLite as bytes read back as three, and the verifier's reading would not hash as the writer did.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Any surrogate at all: a text without one (nearly every text) is well formed as it is, and left alone. */
const SURROGATE = /[\ud800-\udfff]/;
const wellFormedText = (s: string): string => (SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\ufffd') : s);
const kept = (s: string | null | undefined): string | null =>
  s === null || s === undefined ? null : wellFormedText(s);

/** The object the canonical form is of: every column it covers, by name, and the form's version. */
export function chainedFields(e: ChainedEntry) {
  return {
    v: CHAIN_VERSION,
    id: Number(e.id),
    at: Number(e.at),
    account_id: kept(e.account_id),
    key_fingerprint: kept(e.key_fingerprint),
    session_ref: kept(e.session_ref),
    kind: kept(e.kind),
    query: kept(e.query),
    outcome: kept(e.outcome),
    property_id: kept(e.property_id),
    source: kept(e.source),
    confidence: kept(e.confidence),
    last_verified: kept(e.last_verified),
    cached: Number(e.cached),
    cached_at: num(e.cached_at),
    upstream_request_id: kept(e.upstream_request_id),
    review_id: kept(e.review_id),
    row_index: num(e.row_index),
    review_owner: kept(e.review_owner),
    prev_hash: kept(e.prev_hash),
  };
}

/**
 * The members in RFC 8785's order (UTF-16 code units of the names: all ASCII here), `v` (last) apart: a row read in
 * this column order is written as it comes (the verifier reads SQLite's rows so, as arrays).
 */
export const CHAINED_COLUMNS = Object.keys(chainedFields({} as ChainedEntry))
  .filter((m) => m !== 'v')
  .sort() as (keyof ChainedEntry)[];

const PREFIXES = CHAINED_COLUMNS.map((m, i) => `${i === 0 ? '{' : ','}"${m}":`);

/**
 * The canonical form (RFC 8785) of an entry's values in CHAINED_COLUMNS order, numbers as numbers and text well
 * formed: the members' order is fixed, so it is written without sorting them for each entry (what `canonicalize`
 * does: a 1,000,000-entry walk spent a third of its time there); each value as `canonicalize` writes it
 * (JSON.stringify of a string, a number or null, which RFC 8785 adopts). chain.test.ts holds it equal to
 * `canonicalize` of chainedFields.
 */
export function canonicalOf(values: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < PREFIXES.length; i++) out += PREFIXES[i] + JSON.stringify(values[i] ?? null);
  return `${out},"v":${CHAIN_VERSION}}`;
}

/** The canonical form of an entry (RFC 8785): what its hash is of. */
export function canonicalEntry(e: ChainedEntry): string {
  const fields = chainedFields(e) as Record<string, unknown>;
  return canonicalOf(CHAINED_COLUMNS.map((m) => fields[m]));
}

/** The canonical form by the `canonicalize` package itself (the reference canonicalEntry is held to). */
export const canonicalized = (e: ChainedEntry): string => canonicalize(chainedFields(e)) as string;

export const entryHash = (e: ChainedEntry): string => hash('sha256', canonicalEntry(e), 'hex');

/** Where the chain goes on from: the last entry's id and hash (or, with none, where retention left it). */
export interface ChainHead {
  id: number;
  hash: string;
}

/**
 * Entries as inserted: each with its id, its previous entry's hash and its own, chained after `head`; texts
 * well formed, and the folded search text (audit-rows.ts). Each row is one object literal of every column
 * (COLUMNS below): built for every answer's commit, where spreading the entry into it again and again cost more
 * than the hash.
 */
export function chained(head: ChainHead, ids: readonly number[], entries: readonly NewAuditEntry[]) {
  let prev = head.hash;
  return entries.map((e, i) => {
    const row = {
      id: ids[i] as number,
      at: e.at,
      account_id: wellFormedText(e.account_id),
      key_fingerprint: wellFormedText(e.key_fingerprint),
      session_ref: kept(e.session_ref),
      kind: wellFormedText(e.kind),
      query: kept(e.query),
      outcome: wellFormedText(e.outcome),
      property_id: kept(e.property_id),
      source: kept(e.source),
      confidence: kept(e.confidence),
      last_verified: kept(e.last_verified),
      cached: e.cached,
      cached_at: e.cached_at,
      upstream_request_id: kept(e.upstream_request_id),
      review_id: kept(e.review_id),
      row_index: e.row_index,
      review_owner: kept(e.review_owner),
      search_text: kept(searchTextOf(e)),
      prev_hash: prev,
      hash: '',
    } satisfies Record<(typeof COLUMNS)[number], unknown>;
    row.hash = entryHash(row);
    prev = row.hash;
    return row;
  });
}

type Db = Kysely<DatabaseSchema>;

/**
 * A reviewer's change's audit entries, in the change's own transaction: the change stands only with them (ADR 010,
 * addendum); when the insert fails, the transaction is undone and the caller answers audit_unavailable.
 */
export async function insertForChange(trx: Db, entries: readonly NewAuditEntry[]): Promise<void> {
  await insertChained(trx, entries).catch(() => {
    throw auditUnavailable();
  });
}

/**
 * Appends entries to the chain inside the caller's transaction (`trx`: every Kysely insert path). PostgreSQL: the
 * one row of `audit_chain` is locked first (held until the transaction ends, so replicas append one after
 * another), then the head is read in a statement of its own (a fresh snapshot: it sees the entry the previous
 * holder committed) and the ids are drawn from the sequence, all under the lock.
 */
export async function insertChained(trx: Db, entries: readonly NewAuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  let head: ChainHead;
  let ids: number[];
  if (postgres) {
    const base = await sql<ChainHead>`select base_id as id, base_hash as hash from audit_chain
      where id = 1 for update`.execute(trx);
    const { rows } = await sql<{ id: number | null; hash: string | null; ids: string[] }>`select
        (select id from audit_entries order by id desc limit 1) as id,
        (select hash from audit_entries order by id desc limit 1) as hash,
        array(select nextval('audit_entries_id_seq') from generate_series(1, ${entries.length})) as ids`.execute(
      trx,
    );
    const r = rows[0] as { id: number | null; hash: string | null; ids: string[] };
    head = r.id === null ? (base.rows[0] as ChainHead) : { id: Number(r.id), hash: r.hash as string };
    ids = r.ids.map(Number);
  } else {
    const { rows } = await sql<HeadRow>`${sql.raw(SQLITE_HEAD)}`.execute(trx);
    head = sqliteHead(rows[0] as HeadRow);
    ids = entries.map((_, i) => head.id + 1 + i);
  }
  const rows = chained(head, ids, entries);
  for (let i = 0; i < rows.length; i += 500)
    await trx
      .insertInto('audit_entries')
      .values(rows.slice(i, i + 500))
      .execute();
}

/**
 * SQLite's head, and where the next id goes on from: AUTOINCREMENT never gives an id twice (its sequence keeps
 * the highest ever given, removed or not), and neither does the chain.
 */
const SQLITE_HEAD = `select c.base_id, c.base_hash,
    (select id from audit_entries order by id desc limit 1) as last_id,
    (select hash from audit_entries order by id desc limit 1) as last_hash,
    (select seq from sqlite_sequence where name = 'audit_entries') as seq
  from audit_chain c`;

interface HeadRow {
  base_id: number;
  base_hash: string;
  last_id: number | null;
  last_hash: string | null;
  seq: number | null;
}

/** The head to chain after, its id the highest given so far (the next is one more). */
function sqliteHead(r: HeadRow): ChainHead {
  const hash = r.last_id === null ? r.base_hash : (r.last_hash as string);
  return { id: Math.max(Number(r.base_id), Number(r.last_id ?? 0), Number(r.seq ?? 0)), hash };
}

const COLUMNS = [
  'id',
  'at',
  'account_id',
  'key_fingerprint',
  'session_ref',
  'kind',
  'query',
  'outcome',
  'property_id',
  'source',
  'confidence',
  'last_verified',
  'cached',
  'cached_at',
  'upstream_request_id',
  'review_id',
  'row_index',
  'review_owner',
  'search_text',
  'prev_hash',
  'hash',
] as const;

/** Rows a prepared insert takes at once, largest first: a group commit's entries go in as few statements as fit. */
const INSERT_SIZES = [16, 4, 1] as const;

/**
 * Entries chained and inserted through statements prepared once, in the caller's transaction (SQLite: one
 * writer, so the head read in the transaction is the head). The head is read once for the entries given
 * together, not once for each: an index seek per entry on every answer's commit. The rows go in by position, up
 * to 16 in one statement: on a 230,000-entry trail a 16-entry commit took 7.3 µs an entry where a statement per
 * entry, bound by name, took 8.7.
 */
export function preparedAuditAppend(
  sqlite: BetterSqlite3.Database,
): (entries: readonly NewAuditEntry[]) => void {
  const head = sqlite.prepare<[], HeadRow>(SQLITE_HEAD);
  const row = `(${COLUMNS.map(() => '?').join(', ')})`;
  const inserts = INSERT_SIZES.map((size) => ({
    size,
    statement: sqlite.prepare(
      `insert into audit_entries (${COLUMNS.join(', ')}) values ${Array(size).fill(row).join(', ')}`,
    ),
  }));
  return (entries) => {
    if (entries.length === 0) return;
    const at = sqliteHead(head.get() as HeadRow);
    const ids = entries.map((_, i) => at.id + 1 + i);
    const rows = chained(at, ids, entries);
    let from = 0;
    for (const { size, statement } of inserts)
      for (; rows.length - from >= size; from += size) {
        const values: unknown[] = [];
        for (let i = from; i < from + size; i++) for (const c of COLUMNS) values.push(rows[i]?.[c]);
        statement.run(values);
      }
  };
}

/** Entries appended in one SQLite transaction through statements prepared once. */
export function preparedAppend(sqlite: BetterSqlite3.Database) {
  return sqlite.transaction(preparedAuditAppend(sqlite));
}
