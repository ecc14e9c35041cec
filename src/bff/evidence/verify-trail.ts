import { createPublicKey, hash, type KeyObject } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';
import { CHAINED_COLUMNS, type ChainedEntry, canonicalOf, chainedFields } from '../stores/audit/chain.ts';
import { checkpointSigned } from './checkpoints.ts';
import type { AuditCheckpointsTable } from './tables.ts';

/*
 * The audit trail checked whole (npm run audit:verify): every entry against its hash and the previous entry's,
 * in the chain's order from where it starts, a batch at a time; every checkpoint against its signature (by an
 * evidence key the database keeps) and against the entry it names (its hash, and the count up to it).
 */

type Db = Kysely<DatabaseSchema>;

export interface TrailVerified {
  ok: true;
  entries: number;
  checkpoints: number;
  /** The head's hash (the start's, with no entry). */
  head: string;
}

export interface TrailBroken {
  ok: false;
  /** The first entry that does not match (or the one a checkpoint names): its id and time (epoch ms). */
  id: number;
  at: number;
  how: 'changed' | 'removed' | 'inserted' | 'checkpoint';
  message: string;
}

/** Entries read per query. */
const BATCH = 10_000;

/** An entry as the walk reads it: its values in CHAINED_COLUMNS order, then its hash. */
type Row = unknown[];
const column = (name: keyof ChainedEntry) => CHAINED_COLUMNS.indexOf(name);
const ID = column('id');
const AT = column('at');
const PREV = column('prev_hash');
const HASH = CHAINED_COLUMNS.length;
const SELECTED = [...CHAINED_COLUMNS, 'hash'] as const;

const idOf = (r: Row) => Number(r[ID]);
const atOf = (r: Row) => Number(r[AT]);
const hashOf = (r: Row) => r[HASH] as string;
const sound = (r: Row) => hash('sha256', canonicalOf(r), 'hex') === r[HASH];

/**
 * The trail from after `after`, in id order, a batch at a time. SQLite's own handle reads rows as arrays in the
 * canonical form's column order (a row as an object cost twice the walk); Kysely's objects are put in that order.
 */
async function* entries(db: Db, sqlite: BetterSqlite3.Database | undefined, after: number, batch: number) {
  const read = sqlite
    ? sqlite
        .prepare<[number, number], Row>(
          `select ${SELECTED.join(', ')} from audit_entries where id > ? order by id limit ?`,
        )
        .raw(true)
    : undefined;
  for (;;) {
    const rows: Row[] = read
      ? read.all(after, batch)
      : (
          await db
            .selectFrom('audit_entries')
            .select(SELECTED)
            .where('id', '>', after)
            .orderBy('id')
            .limit(batch)
            .execute()
        ).map((r) => {
          const fields = chainedFields(r as ChainedEntry) as Record<string, unknown>;
          return [...CHAINED_COLUMNS.map((m) => fields[m]), r.hash];
        });
    yield* rows;
    if (rows.length < batch) return;
    after = idOf(rows.at(-1) as Row);
  }
}

const when = (at: number) => new Date(at).toISOString();

/** Walks the whole trail and every checkpoint; the first thing that does not match, or the count. */
export async function verifyTrail(
  db: Db,
  { sqlite, batch = BATCH }: { sqlite?: BetterSqlite3.Database | undefined; batch?: number } = {},
): Promise<TrailVerified | TrailBroken> {
  const base = await db.selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const baseId = Number(base.base_id);
  // An entry at or before the chain's start is walked by nothing below: a row written there (a negative id, or an
  // id retention removed) would stand in Activity and in a packet unchecked. There is none in a sound trail.
  const before = await db
    .selectFrom('audit_entries')
    .select(['id', 'at'])
    .where('id', '<=', baseId)
    .orderBy('id')
    .executeTakeFirst();
  if (before)
    return brokenAt(Number(before.id), Number(before.at), 'inserted', 'it is before the start of the chain');
  const checkpoints = await db.selectFrom('audit_checkpoints').selectAll().orderBy('at').execute();
  const unsigned = await checkSignatures(db, checkpoints);
  if (unsigned) return unsigned;
  // The checkpoints still checkable against entries: those naming the start or an entry after it.
  const checked = new Map<number, AuditCheckpointsTable[]>();
  for (const c of checkpoints) {
    const head = Number(c.head_id);
    if (head === baseId && (c.head_hash !== base.base_hash || Number(c.entries) !== Number(base.base_count)))
      return checkpointBroken(c, 'names the start of the trail as it was not');
    if (head > baseId) checked.set(head, [...(checked.get(head) ?? []), c]);
  }

  let prev = base.base_hash;
  let beforePrev: string | undefined;
  let previous: Row | undefined;
  let count = Number(base.base_count);
  const walk = entries(db, sqlite, baseId, batch);
  let next = (await walk.next()).value as Row | undefined;
  while (next) {
    const e = next;
    next = (await walk.next()).value as Row | undefined;
    const intact = sound(e);
    if (!intact || e[PREV] !== prev) {
      if (next && next[PREV] === prev && sound(next))
        return broken(e, 'inserted', 'it is not in the chain: the entry after it follows the one before it');
      if (intact && previous && beforePrev !== undefined && e[PREV] === beforePrev)
        return broken(
          previous,
          'inserted',
          'it is not in the chain: the entry after it follows the one before it',
        );
      if (!intact) return broken(e, 'changed', 'its content does not match its hash');
      return broken(
        e,
        'removed',
        `it does not follow ${previous ? `entry ${idOf(previous)}` : 'the start of the trail'}: an entry between them was removed (or that one was changed and its hash made again)`,
      );
    }
    count++;
    const id = idOf(e);
    const named = checked.get(id);
    if (named) {
      for (const c of named)
        if (Number(c.entries) !== count || c.head_hash !== hashOf(e))
          return checkpointBroken(c, `counts ${c.entries} entries up to entry ${id}, the trail ${count}`);
      checked.delete(id);
    }
    beforePrev = prev;
    prev = hashOf(e);
    previous = e;
  }
  // A checkpoint naming an entry the walk never met: the entry, or the trail's end, was removed.
  const [missing] = [...checked.values()].flat();
  if (missing) {
    return {
      ok: false,
      id: Number(missing.head_id),
      at: Number(missing.at),
      how: 'removed',
      message: `entry ${missing.head_id}, the head of the checkpoint of ${when(Number(missing.at))}, is not in the trail (it ends at ${previous ? `entry ${idOf(previous)}` : 'its start'})`,
    };
  }
  return { ok: true, entries: count, checkpoints: checkpoints.length, head: prev };
}

function broken(e: Row, how: TrailBroken['how'], why: string): TrailBroken {
  return brokenAt(idOf(e), atOf(e), how, why);
}

function brokenAt(id: number, at: number, how: TrailBroken['how'], why: string): TrailBroken {
  return { ok: false, id, at, how, message: `entry ${id} (${when(at)}) was ${how}: ${why}` };
}

function checkpointBroken(c: AuditCheckpointsTable, why: string): TrailBroken {
  const at = Number(c.at);
  return {
    ok: false,
    id: Number(c.head_id),
    at,
    how: 'checkpoint',
    message: `the checkpoint of ${when(at)} (entry ${c.head_id}) ${why}`,
  };
}

/** Each checkpoint signed by an evidence key the database keeps; the first that is not, or undefined. */
async function checkSignatures(
  db: Db,
  checkpoints: AuditCheckpointsTable[],
): Promise<TrailBroken | undefined> {
  const keys = new Map<string, KeyObject>();
  for (const k of await db.selectFrom('evidence_keys').selectAll().execute())
    keys.set(k.key_id, createPublicKey({ key: JSON.parse(k.public_jwk), format: 'jwk' }));
  for (const c of checkpoints) {
    const key = keys.get(c.key_id);
    if (!key)
      return checkpointBroken(c, `is signed by key ${c.key_id}, which is not among the evidence keys`);
    if (!checkpointSigned({ ...c, at: Number(c.at) }, c.signature, key))
      return checkpointBroken(c, 'does not match its signature: it was changed after it was signed');
  }
  return undefined;
}

/** The one line `npm run audit:verify` prints. */
export function verdictLine(result: TrailVerified | TrailBroken): string {
  if (!result.ok) return `Audit trail NOT verified: ${result.message}`;
  const n = (x: number) => x.toLocaleString('en-US');
  return `Audit trail verified: ${n(result.entries)} entries, ${n(result.checkpoints)} checkpoints, head ${result.head.slice(0, 12)}…`;
}
