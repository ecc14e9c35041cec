import { createPublicKey, hash, type KeyObject } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';
import { CHAINED_COLUMNS, type ChainedEntry, canonicalOf, chainedFields } from '../stores/audit/chain.ts';
import { checkpointSigned } from './checkpoints.ts';
import type { AuditCheckpointsTable } from './tables.ts';

/*
 * The audit trail checked whole (npm run audit:verify): every entry against its hash and the previous entry's,
 * in the chain's order from where it starts, a batch at a time; every checkpoint against its signature (by a key
 * of the JWKS the verifier trusts: configuration's, or one it was given, never the evidence_keys table) and against
 * the entry it names (its hash, and the count up to it).
 */

/** A key the verifier trusts, as a JWKS has it: with when it signed (ISO 8601), where the JWKS says so. */
export type TrustedKey = JWK & { valid_from?: string | null; valid_to?: string | null };

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
  how: 'changed' | 'removed' | 'inserted' | 'checkpoint' | 'key';
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

/**
 * Walks the whole trail and every checkpoint; the first thing that does not match, or the count. `keys`: the keys
 * checkpoints may be signed by (none given: no checkpoint verifies).
 */
export async function verifyTrail(
  db: Db,
  {
    sqlite,
    batch = BATCH,
    keys = [],
  }: { sqlite?: BetterSqlite3.Database | undefined; batch?: number; keys?: readonly TrustedKey[] } = {},
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
  const unsigned = await checkSignatures(db, checkpoints, keys);
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

interface Trusted {
  key: KeyObject;
  x: unknown;
  from: number | undefined;
  to: number | undefined;
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : undefined);

/**
 * Each evidence_keys row a key the verifier trusts (a row that is not, or holds another key under a trusted kid, was
 * written behind PropLens), then each checkpoint signed by a trusted key within its validity; the first that is
 * not, or undefined.
 */
async function checkSignatures(
  db: Db,
  checkpoints: AuditCheckpointsTable[],
  keys: readonly TrustedKey[],
): Promise<TrailBroken | undefined> {
  const trusted = new Map<string, Trusted>();
  for (const k of keys) {
    if (!k.kid || k.kty !== 'OKP' || k.crv !== 'Ed25519') continue;
    const { kty, crv, x } = k;
    trusted.set(k.kid, {
      key: createPublicKey({ key: { kty, crv, x }, format: 'jwk' }),
      x,
      from: time(k.valid_from),
      to: time(k.valid_to),
    });
  }
  for (const row of await db.selectFrom('evidence_keys').selectAll().orderBy('valid_from').execute()) {
    const t = trusted.get(row.key_id);
    let x: unknown;
    try {
      x = (JSON.parse(row.public_jwk) as JWK).x;
    } catch {}
    if (!t || t.x !== x)
      return {
        ok: false,
        id: 0,
        at: Number(row.valid_from),
        how: 'key',
        message: t
          ? `the evidence_keys row of ${row.key_id} is not the configured key`
          : `the evidence_keys row of ${row.key_id} is not a configured key (the current key, EVIDENCE_RETIRED_KEYS or --keys): it was added behind PropLens, or a retired key is missing from configuration`,
      };
  }
  for (const c of checkpoints) {
    const t = trusted.get(c.key_id);
    if (!t)
      return checkpointBroken(
        c,
        `is signed by key ${c.key_id}, which is not among the configured evidence keys`,
      );
    const at = Number(c.at);
    if (!checkpointSigned({ ...c, at }, c.signature, t.key))
      return checkpointBroken(c, 'does not match its signature: it was changed after it was signed');
    if (t.from !== undefined && at < t.from)
      return checkpointBroken(
        c,
        `was signed before its key existed (key ${c.key_id} is valid from ${when(t.from)})`,
      );
    if (t.to !== undefined && at > t.to)
      return checkpointBroken(c, `was signed after its key was retired (key ${c.key_id}, ${when(t.to)})`);
  }
  return undefined;
}

/** The one line `npm run audit:verify` prints. */
export function verdictLine(result: TrailVerified | TrailBroken): string {
  if (!result.ok) return `Audit trail NOT verified: ${result.message}`;
  const n = (x: number) => x.toLocaleString('en-US');
  return `Audit trail verified: ${n(result.entries)} entries, ${n(result.checkpoints)} checkpoints, head ${result.head.slice(0, 12)}…`;
}
