import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CustodyState } from '../../contract/custody.ts';
import type { AuditKind } from '../../contract/index.ts';
import { NOT_A_LOOKUP } from '../audit/audit.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { NewAuditEntry } from '../stores/audit/audit-store.ts';
import type { SqlKeyNames } from '../stores/key-names.ts';
import { hashKey, keyFingerprint, type Session } from '../stores/sessions/types.ts';
import type { CustodyKeysTable } from './custody-table.ts';
import { KDF, type KeySealer } from './sealing.ts';

/**
 * The session ref of every lookup made with a kept key (its audit entries' `session`): no person's session made
 * it, nobody was signed in. The entry's key is the kept key's fingerprint.
 */
export const UNATTENDED = 'unattended';

/** How long what the worker reads of custody (which accounts, an account's key) is reused before it is read again. */
export const CUSTODY_READ_MS = 1_000;

/** Where custody_on / custody_off / custody_refused go: the audit trail's writer. */
export interface CustodyAudit {
  assertWritable(): void;
  record(entry: NewAuditEntry): Promise<void>;
}

export interface KeyCustodyDeps {
  db: Kysely<DatabaseSchema>;
  /** The sealer, or why this server keeps no keys (secret.ts). */
  sealer: KeySealer | { unavailable: string };
  audit?: CustodyAudit;
  keyNames?: Pick<SqlKeyNames, 'get'>;
  logger: Logger;
  now?: () => number;
}

/**
 * "Work while I'm signed out": one account's key kept sealed in the database (docs/decisions/013-key-custody.md),
 * lent to the review worker when nobody of the account is signed in. Turning it off deletes the row; the service
 * refusing the key deletes its sealed columns and keeps the date, said in Settings and on the review.
 */
export class KeyCustody {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sealer: KeySealer | null;
  readonly #now: () => number;
  /** Accounts whose kept key this server can open, read at most once a CUSTODY_READ_MS. */
  #accounts: { ids: Promise<string[]>; until: number } | null = null;
  /** Each account's kept key as a session (or none), read at most once a CUSTODY_READ_MS. */
  readonly #sessions = new Map<string, { session: Promise<Session | undefined>; until: number }>();

  constructor(private readonly deps: KeyCustodyDeps) {
    this.#db = deps.db;
    this.#sealer = 'unavailable' in deps.sealer ? null : deps.sealer;
    this.#now = deps.now ?? Date.now;
  }

  /** Why this server keeps no keys (no KEY_ENCRYPTION_SECRET where replicas share the database), or null. */
  get unavailable(): string | null {
    return 'unavailable' in this.deps.sealer ? this.deps.sealer.unavailable : null;
  }

  async state(accountId: string, unavailableReason: string | null = null): Promise<CustodyState> {
    const row = await this.#row(accountId);
    const reason = this.unavailable ?? unavailableReason;
    const off: CustodyState = {
      available: this.#sealer !== null,
      on: false,
      keyFingerprint: null,
      keyName: null,
      since: null,
      problem: null,
      problemAt: null,
      unavailableReason: reason,
    };
    if (!row) return off;
    const who = {
      keyFingerprint: row.key_fingerprint,
      keyName: (await this.deps.keyNames?.get(accountId, row.key_fingerprint)) ?? null,
      since: iso(row.turned_on_at),
    };
    if (row.refused_at !== null)
      return { ...off, ...who, problem: 'refused', problemAt: iso(row.refused_at) };
    if (!this.#open(row)) return { ...off, ...who, problem: 'unreadable' };
    return { ...off, ...who, on: true };
  }

  /** Keeps this session's key for the account (replacing any kept before), on record as custody_on. */
  async turnOn(session: Session): Promise<void> {
    const sealer = this.#sealer;
    if (!sealer) throw new ApiError(409, 'conflict', this.unavailable ?? 'This server keeps no keys.');
    this.deps.audit?.assertWritable();
    const fingerprint = keyFingerprint(session.keyHash);
    const sealed = sealer.seal(session.accountId, { apiKey: session.apiKey, account: session.account });
    const row: CustodyKeysTable = {
      account_id: session.accountId,
      key_fingerprint: fingerprint,
      key_check: sealer.keyCheck(session.keyHash),
      ciphertext: sealed.ciphertext,
      iv: sealed.iv,
      auth_tag: sealed.authTag,
      kdf: KDF,
      secret_id: sealer.secretId,
      turned_on_at: this.#now(),
      refused_at: null,
      refused_note: null,
    };
    const { account_id: _account, ...replaced } = row;
    await this.#db
      .insertInto('custody_keys')
      .values(row)
      .onConflict((oc) => oc.column('account_id').doUpdateSet(replaced))
      .execute();
    this.#forget(session.accountId);
    // No key is kept whose keeping is not on record: taken back (if still this one) when the trail refuses it.
    await this.#record('custody_on', session, fingerprint).catch(async (err: unknown) => {
      await this.#db
        .deleteFrom('custody_keys')
        .where('account_id', '=', session.accountId)
        .where('iv', '=', sealed.iv)
        .execute();
      this.#forget(session.accountId);
      throw err;
    });
  }

  /** Deletes the account's kept key (and any refusal said of it), on record as custody_off by this session's key. */
  async turnOff(session: Session): Promise<void> {
    const deleted = await this.#db
      .deleteFrom('custody_keys')
      .where('account_id', '=', session.accountId)
      .returning('key_fingerprint')
      .executeTakeFirst();
    this.#forget(session.accountId);
    if (!deleted) return;
    // The key is gone whatever the trail says: a turn-off never fails open.
    await this.#record('custody_off', session, deleted.key_fingerprint).catch((err: unknown) => {
      this.deps.logger.error(
        { err: { message: (err as Error).message } },
        'custody turned off, not recorded in the audit trail',
      );
    });
  }

  /**
   * The service refused this key (refused-keys.ts): if it is the account's kept key, its sealed columns go at once
   * and the refusal's date stays, so the account's unattended work waits and Settings and the review say why.
   */
  async refused(who: Pick<Session, 'accountId' | 'keyHash'>): Promise<void> {
    if (!this.#sealer) return;
    await this.#drop(this.#sealer.keyCheck(who.keyHash), who.accountId);
  }

  /** A sign-in with a key the service refused: wherever that key is kept, it goes as a refused one does. */
  async refusedAtSignIn(keyHash: string): Promise<void> {
    if (!this.#sealer) return;
    await this.#drop(this.#sealer.keyCheck(keyHash));
  }

  /** Accounts whose kept key this server can open: the worker works their rows with nobody signed in. */
  accounts(): Promise<string[]> {
    const sealer = this.#sealer;
    if (!sealer) return Promise.resolve([]);
    const now = this.#now();
    if (this.#accounts && this.#accounts.until > now) return this.#accounts.ids;
    const ids = this.#db
      .selectFrom('custody_keys')
      .select('account_id')
      .where('ciphertext', 'is not', null)
      .where('secret_id', '=', sealer.secretId)
      .execute()
      .then((rows) => rows.map((r) => r.account_id));
    this.#accounts = { ids, until: now + CUSTODY_READ_MS };
    ids.catch(() => {
      this.#accounts = null;
    });
    return ids;
  }

  /**
   * The account's kept key as a session marked unattended (UNATTENDED), or undefined (none, refused, unreadable).
   * Reused for CUSTODY_READ_MS, then the row is read again: a turn-off on another replica stops its use within it.
   */
  sessionFor(accountId: string): Promise<Session | undefined> {
    if (!this.#sealer) return Promise.resolve(undefined);
    const now = this.#now();
    const cached = this.#sessions.get(accountId);
    if (cached && cached.until > now) return cached.session;
    const session = this.#row(accountId).then((row) => (row ? this.#sessionOf(row) : undefined));
    if (this.#sessions.size >= 10_000) this.#sessions.clear();
    this.#sessions.set(accountId, { session, until: now + CUSTODY_READ_MS });
    session.catch(() => this.#sessions.delete(accountId));
    return session;
  }

  #sessionOf(row: CustodyKeysTable): Session | undefined {
    const kept = this.#open(row);
    if (!kept) return undefined;
    const keyHash = hashKey(kept.apiKey);
    // A row whose key is not the one it names (a key moved between rows of one account) is no key to use.
    if (keyFingerprint(keyHash) !== row.key_fingerprint) return undefined;
    return {
      apiKey: kept.apiKey,
      keyHash,
      account: { name: kept.account.name, plan: kept.account.plan as Session['account']['plan'] },
      accountId: row.account_id,
      auditRef: UNATTENDED,
      createdAt: row.turned_on_at,
      lastSeenAt: this.#now(),
    };
  }

  #open(row: CustodyKeysTable) {
    const sealer = this.#sealer;
    if (!sealer || row.ciphertext === null || row.iv === null || row.auth_tag === null) return null;
    if (row.secret_id !== sealer.secretId || row.kdf !== KDF) return null;
    return sealer.open(row.account_id, { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag });
  }

  async #drop(keyCheck: string, accountId?: string): Promise<void> {
    let query = this.#db
      .updateTable('custody_keys')
      .set({
        ciphertext: null,
        iv: null,
        auth_tag: null,
        key_check: null,
        refused_at: this.#now(),
        refused_note: 'The service refused the kept key.',
      })
      .where('key_check', '=', keyCheck);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const dropped = await query.returning(['account_id', 'key_fingerprint']).execute();
    for (const row of dropped) {
      this.#forget(row.account_id);
      await this.#entry(
        'custody_refused',
        row.account_id,
        row.key_fingerprint,
        null,
        row.key_fingerprint,
      ).catch((err: unknown) => {
        this.deps.logger.error(
          { err: { message: (err as Error).message } },
          'refused kept key dropped, not recorded in the audit trail',
        );
      });
    }
  }

  #row(accountId: string): Promise<CustodyKeysTable | undefined> {
    return this.#db
      .selectFrom('custody_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  #forget(accountId: string): void {
    this.#sessions.delete(accountId);
    this.#accounts = null;
  }

  #record(kind: AuditKind, session: Session, keptFingerprint: string): Promise<void> {
    return this.#entry(
      kind,
      session.accountId,
      keyFingerprint(session.keyHash),
      session.auditRef ?? null,
      keptFingerprint,
    );
  }

  /** An entry of custody: by which key (`fingerprint`), of which kept key (`query`: "key 1a2b3c4d"). */
  #entry(
    kind: AuditKind,
    accountId: string,
    fingerprint: string,
    sessionRef: string | null,
    keptFingerprint: string,
  ): Promise<void> {
    if (!this.deps.audit) return Promise.resolve();
    return this.deps.audit.record({
      at: this.#now(),
      account_id: accountId,
      key_fingerprint: fingerprint,
      session_ref: sessionRef,
      kind,
      query: `key ${keptFingerprint}`,
      outcome: kind === 'custody_refused' ? 'refused' : 'ok',
      ...NOT_A_LOOKUP,
      review_id: null,
      row_index: null,
    });
  }
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();
