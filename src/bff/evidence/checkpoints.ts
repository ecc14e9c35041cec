import { type KeyObject, randomUUID, sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { exportJWK, type JWK } from 'jose';
import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';
import type { SigningKey } from './signing-key.ts';
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

export interface EvidenceKey extends JWK {
  kid: string;
  /** When the key started and stopped signing (ISO 8601); null: it signs now. */
  valid_from: string;
  valid_to: string | null;
}

/** The chain's checkpoints and the keys that sign them, on the BFF's database. */
export class Checkpoints {
  #registered: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    /** None where replicas share the database and EVIDENCE_SIGNING_KEY is not set: nothing is signed. */
    private readonly key: SigningKey | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Puts the signing key's public half among the evidence keys (once per process): a key seen first now is
   * valid from now, and retires the keys that signed until now (they stay, with the time they stopped).
   */
  register(): Promise<void> {
    const key = this.key;
    if (!key) return Promise.resolve();
    this.#registered ??= (async () => {
      const jwk = await exportJWK(key.publicKey);
      const at = this.now();
      await this.db.transaction().execute(async (trx) => {
        const added = await trx
          .insertInto('evidence_keys')
          .values({ key_id: key.keyId, public_jwk: JSON.stringify(jwk), valid_from: at, valid_to: null })
          .onConflict((oc) => oc.column('key_id').doNothing())
          .executeTakeFirst();
        if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return;
        await trx
          .updateTable('evidence_keys')
          .set({ valid_to: at })
          .where('key_id', '!=', key.keyId)
          .where('valid_to', 'is', null)
          .execute();
      });
    })().catch((err: unknown) => {
      this.#registered = undefined;
      throw err;
    });
    return this.#registered;
  }

  /**
   * Signs a checkpoint of the chain as it is now and keeps it (evidence exports call this). The count and the head
   * are read in one statement: one snapshot, in which the entries committed are a start of the chain (appends
   * commit in chain order, ADR 014).
   */
  async checkpointNow(): Promise<SignedCheckpoint> {
    const { written: _, ...signed } = await this.#write(`now:${this.now()}:${randomUUID()}`);
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

  /** Every evidence key, current first, as a JWKS's keys with their validity. */
  async keys(): Promise<EvidenceKey[]> {
    await this.register();
    const rows = await this.db
      .selectFrom('evidence_keys')
      .selectAll()
      .orderBy('valid_from', 'desc')
      .execute();
    return rows.map((r) => ({
      ...(JSON.parse(r.public_jwk) as JWK),
      kid: r.key_id,
      use: 'sig',
      alg: 'EdDSA',
      valid_from: new Date(Number(r.valid_from)).toISOString(),
      valid_to: r.valid_to === null ? null : new Date(Number(r.valid_to)).toISOString(),
    }));
  }
}
