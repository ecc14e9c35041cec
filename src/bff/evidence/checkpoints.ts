import { type KeyObject, randomUUID, sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';
import { type EvidenceKey, evidenceKeyOf, keepRetiredKey, type SigningKey } from './signing-key.ts';
import type { AuditCheckpointsTable } from './tables.ts';

/*
 * Signed checkpoints of the audit chain (docs/decisions/014-evidence-formats.md): how many entries it holds and
 * its head, at a time, signed with the evidence key. Whoever keeps one (an auditor, an evidence packet) can later
 * tell that the trail up to that head was not rewritten since.
 */

type Db = Kysely<DatabaseSchema>;

const HOUR = 3_600_000;

/** What a checkpoint states; its signature is over checkpointPayload of it. */
export type Checkpoint = Omit<AuditCheckpointsTable, 'id' | 'slot' | 'signature'>;

/** The bytes signed: the checkpoint's canonical JSON (RFC 8785), with a tag saying what it is. */
export function checkpointPayload(c: Checkpoint): Buffer {
  return Buffer.from(
    canonicalize({
      type: 'proplens-audit-checkpoint',
      v: 1,
      at: Number(c.at),
      entries: Number(c.entries),
      head_id: Number(c.head_id),
      head_hash: c.head_hash,
      key_id: c.key_id,
    }) as string,
  );
}

/** Nothing can be signed: replicas share the database and EVIDENCE_SIGNING_KEY is not set. */
export class EvidenceUnavailable extends Error {
  constructor() {
    super('Evidence cannot be signed: set EVIDENCE_SIGNING_KEY (the same on every replica).');
  }
}

export type SignedCheckpoint = Checkpoint & { signature: string };

export const signCheckpoint = (c: Checkpoint, key: KeyObject): string =>
  sign(null, checkpointPayload(c), key).toString('base64url');

export const checkpointSigned = (c: Checkpoint, signature: string, key: KeyObject): boolean =>
  verify(null, checkpointPayload(c), key, Buffer.from(signature, 'base64url'));

export type { EvidenceKey };

/** The keys configuration trusts besides the signing key, and what to do with one PropLens retires. */
export interface KeyTrust {
  /** The retired public keys configured (EVIDENCE_RETIRED_KEYS, or the file beside the generated key). */
  retired?: EvidenceKey[];
  /** The embedded default's folder: a key PropLens retires is written into its retired-keys file. */
  retiredKeysDir?: string | undefined;
  warn?: (details: object, message: string) => void;
}

/**
 * The chain's checkpoints and the keys that sign them, on the BFF's database. The keys served and trusted are the
 * configured ones (the signing key and the retired ones): the evidence_keys table only records which signed when,
 * and a row there that configuration does not hold is never served (a database writer cannot add a key, ADR 014).
 */
export class Checkpoints {
  #registered: Promise<void> | undefined;
  readonly #retired: EvidenceKey[];

  constructor(
    private readonly db: Db,
    /** None where replicas share the database and EVIDENCE_SIGNING_KEY is not set: nothing is signed. */
    private readonly key: SigningKey | undefined,
    private readonly now: () => number = Date.now,
    private readonly trust: KeyTrust = {},
  ) {
    this.#retired = [...(trust.retired ?? [])];
  }

  /**
   * Puts the signing key's public half among the evidence keys (once per process): a key seen first now is
   * valid from now, and retires the keys that signed until now (they stay, with the time they stopped). A key so
   * retired verifies nothing unless configuration lists it: the embedded default writes it into its retired-keys
   * file; elsewhere the operator is told (once) to add it to EVIDENCE_RETIRED_KEYS.
   */
  register(): Promise<void> {
    const key = this.key;
    if (!key) return Promise.resolve();
    this.#registered ??= (async () => {
      const jwk = publicJwk(key);
      const at = this.now();
      const retiring = await this.db.transaction().execute(async (trx) => {
        const added = await trx
          .insertInto('evidence_keys')
          .values({ key_id: key.keyId, public_jwk: JSON.stringify(jwk), valid_from: at, valid_to: null })
          .onConflict((oc) => oc.column('key_id').doNothing())
          .executeTakeFirst();
        if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return [];
        const current = await trx
          .selectFrom('evidence_keys')
          .selectAll()
          .where('key_id', '!=', key.keyId)
          .where('valid_to', 'is', null)
          .execute();
        await trx
          .updateTable('evidence_keys')
          .set({ valid_to: at })
          .where('key_id', '!=', key.keyId)
          .where('valid_to', 'is', null)
          .execute();
        return current.map((r) => ({ ...r, valid_to: at }));
      });
      for (const row of retiring) this.#retire(row);
    })().catch((err: unknown) => {
      this.#registered = undefined;
      throw err;
    });
    return this.#registered;
  }

  /**
   * Signs a checkpoint of the chain as it is now and keeps it (evidence exports call this), or answers the last
   * one when the chain has not moved since (same head and count, signed by this key). The count and the head
   * are read in one statement: one snapshot, in which the entries committed are a start of the chain (appends
   * commit in chain order, ADR 014).
   */
  async checkpointNow(): Promise<SignedCheckpoint> {
    // An unchanged chain reuses the last checkpoint (hostile review M12: each export wrote a row, so exports of an
    // idle trail grew the table without bound). Only one this key signed, checked: a row a database writer put
    // there is not passed on as PropLens's.
    const key = this.key;
    const [head, last] = await Promise.all([
      this.#head(),
      this.db
        .selectFrom('audit_checkpoints')
        .select(['entries', 'head_id', 'head_hash', 'at', 'key_id', 'signature'])
        .orderBy('at', 'desc')
        .limit(1)
        .executeTakeFirst(),
    ]);
    if (key && last && Number(last.head_id) === head.head_id && last.head_hash === head.head_hash) {
      const reused = {
        entries: Number(last.entries),
        head_id: Number(last.head_id),
        head_hash: last.head_hash,
        at: Number(last.at),
        key_id: last.key_id,
      };
      if (
        reused.entries === head.entries &&
        reused.key_id === key.keyId &&
        checkpointSigned(reused, last.signature, key.publicKey)
      )
        return { ...reused, signature: last.signature };
    }
    const { written: _, ...signed } = await this.#write(`now:${this.now()}:${randomUUID()}`, head);
    return signed;
  }

  /**
   * The hour's checkpoint, unless it is written (by any replica: its slot is unique) or the chain has not moved
   * since the last one. Returns whether this call wrote it.
   */
  async hourly(): Promise<boolean> {
    if (!this.key) return false;
    const slot = `hour:${Math.floor(this.now() / HOUR)}`;
    const done = await this.db
      .selectFrom('audit_checkpoints')
      .select('id')
      .where('slot', '=', slot)
      .executeTakeFirst();
    if (done) return false;
    const [head, last] = await Promise.all([
      this.#head(),
      this.db
        .selectFrom('audit_checkpoints')
        .select(['head_id', 'entries'])
        .orderBy('at', 'desc')
        .limit(1)
        .executeTakeFirst(),
    ]);
    if (last && Number(last.head_id) === head.head_id && Number(last.entries) === head.entries) return false;
    return (await this.#write(slot, head)).written;
  }

  async #head(): Promise<Pick<Checkpoint, 'entries' | 'head_id' | 'head_hash'>> {
    const { rows } = await sql<{
      base_id: number;
      base_hash: string;
      base_count: number;
      head_id: number | null;
      head_hash: string | null;
      n: number | string;
    }>`select c.base_id, c.base_hash, c.base_count,
        (select id from audit_entries order by id desc limit 1) as head_id,
        (select hash from audit_entries order by id desc limit 1) as head_hash,
        (select count(*) from audit_entries where id > c.base_id) as n
      from audit_chain c where c.id = 1`.execute(this.db);
    const r = rows[0];
    if (!r) throw new Error('the audit chain has no start (migration 0012)');
    return r.head_id === null
      ? { entries: Number(r.base_count), head_id: Number(r.base_id), head_hash: r.base_hash }
      : {
          entries: Number(r.base_count) + Number(r.n),
          head_id: Number(r.head_id),
          head_hash: r.head_hash as string,
        };
  }

  async #write(
    slot: string,
    head?: Pick<Checkpoint, 'entries' | 'head_id' | 'head_hash'>,
  ): Promise<SignedCheckpoint & { written: boolean }> {
    const key = this.key;
    if (!key) throw new EvidenceUnavailable();
    await this.register();
    const checkpoint: Checkpoint = {
      ...(head ?? (await this.#head())),
      at: this.now(),
      key_id: key.keyId,
    };
    const signature = signCheckpoint(checkpoint, key.privateKey);
    const inserted = await this.db
      .insertInto('audit_checkpoints')
      .values({ id: randomUUID(), slot, ...checkpoint, signature })
      .onConflict((oc) => oc.column('slot').doNothing())
      .executeTakeFirst();
    return { ...checkpoint, signature, written: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 };
  }

  #retire(row: { key_id: string; public_jwk: string; valid_from: number; valid_to: number }): void {
    if (this.#retired.some((k) => k.kid === row.key_id)) return;
    const warn = this.trust.warn ?? (() => {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.public_jwk);
    } catch {}
    const key = evidenceKeyOf(parsed, row.key_id);
    if (!key) {
      warn({ kid: row.key_id }, 'evidence key retired: its evidence_keys row is not a key PropLens wrote');
      return;
    }
    const retired = { ...key, valid_from: iso(row.valid_from), valid_to: iso(row.valid_to) };
    if (this.trust.retiredKeysDir) {
      keepRetiredKey(this.trust.retiredKeysDir, retired);
      this.#retired.push(retired);
      warn({ retiredKey: retired }, 'evidence key retired: kept in the retired-keys file beside the new key');
    } else {
      warn(
        { retiredKey: retired },
        `evidence key retired: packets and checkpoints it signed verify only if EVIDENCE_RETIRED_KEYS lists it (add this key)`,
      );
    }
  }

  /**
   * The configured evidence keys, current first, as a JWKS's keys with their validity: the signing key (valid from
   * when it was first registered) and the retired keys of configuration. Never a row configuration does not hold.
   */
  async keys(): Promise<EvidenceKey[]> {
    await this.register();
    const key = this.key;
    const current: EvidenceKey[] = [];
    if (key) {
      const row = await this.db
        .selectFrom('evidence_keys')
        .select('valid_from')
        .where('key_id', '=', key.keyId)
        .executeTakeFirst();
      current.push({
        ...publicJwk(key),
        kid: key.keyId,
        valid_from: iso(row ? Number(row.valid_from) : this.now()),
        valid_to: null,
      });
    }
    const retired = this.#retired
      .filter((k) => k.kid !== key?.keyId)
      .sort((a, b) => b.valid_from.localeCompare(a.valid_from));
    return [...current, ...retired].map((k) => ({ ...k, use: 'sig', alg: 'EdDSA' }));
  }
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();

function publicJwk(key: SigningKey): { kty: string; crv: string; x: string } {
  const { kty, crv, x } = key.publicKey.export({ format: 'jwk' });
  return { kty: kty as string, crv: crv as string, x: x as string };
}
