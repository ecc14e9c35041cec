import {
  keyFingerprint,
  newAuditRef,
  newSessionId,
  type Session,
  type SessionLimits,
  type SessionStore,
} from './types.ts';

export class MemorySessionStore implements SessionStore {
  /** Maps in last-use order (a use moves a session to the end): the first is the one idle longest. */
  readonly #sessions = new Map<string, Session>();
  /** The same sessions by account, and by account and client address, for choosing whose goes over the cap. */
  readonly #byAccount = new Map<string, Map<string, Session>>();
  readonly #byClient = new Map<string, Map<string, Session>>();
  /** The session last moved to the end of the three maps: asked for again, it is there already. */
  #lastUsed: string | null = null;

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async create(data: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string> {
    const id = newSessionId();
    const now = this.now();
    this.#use(id, { auditRef: newAuditRef(), ...data, createdAt: now, lastSeenAt: now });
    while (this.#sessions.size > this.limits.maxSessions) this.#remove(this.#victim(id, data));
    return id;
  }

  /** Who goes over the cap (the rule is SessionStore.create's): never the session just made. */
  #victim(newId: string, made: Pick<Session, 'accountId' | 'client'>): string {
    const [oldestId, oldest] = this.#sessions.entries().next().value as [string, Session];
    if (oldestId !== newId && !this.#live(oldest)) return oldestId;
    let top = made.accountId;
    let most = this.#byAccount.get(top)?.size ?? 0;
    for (const [account, sessions] of this.#byAccount) {
      if (sessions.size > most) [top, most] = [account, sessions.size];
    }
    const oldestOf = (sessions: Map<string, Session> | undefined) => {
      for (const id of sessions?.keys() ?? []) if (id !== newId) return id;
      return undefined;
    };
    const own = top === made.accountId ? oldestOf(this.#byClient.get(clientKey(made))) : undefined;
    return own ?? oldestOf(this.#byAccount.get(top)) ?? oldestId;
  }

  /** Puts a session last (most recently used) in every map. */
  #use(id: string, s: Session) {
    this.#lastUsed = id;
    for (const [map, key] of [
      [this.#byAccount, s.accountId],
      [this.#byClient, clientKey(s)],
    ] as const) {
      const sessions = map.get(key) ?? new Map<string, Session>();
      map.set(key, sessions);
      sessions.delete(id);
      sessions.set(id, s);
    }
    this.#sessions.delete(id);
    this.#sessions.set(id, s);
  }

  #remove(id: string) {
    const s = this.#sessions.get(id);
    if (!s) return;
    this.#sessions.delete(id);
    for (const [map, key] of [
      [this.#byAccount, s.accountId],
      [this.#byClient, clientKey(s)],
    ] as const) {
      const sessions = map.get(key);
      sessions?.delete(id);
      if (sessions?.size === 0) map.delete(key);
    }
  }

  async get(id: string): Promise<Session | undefined> {
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    if (!this.#live(s)) {
      this.#remove(id);
      return undefined;
    }
    s.lastSeenAt = this.now();
    // An agent's requests come one after another on one session: the three maps' order is already right, and
    // re-inserting it in each was 2 % of a cached answer's CPU.
    if (id !== this.#lastUsed) this.#use(id, s);
    return s;
  }

  async delete(id: string): Promise<void> {
    this.#remove(id);
  }

  async liveAccounts(): Promise<string[]> {
    const accounts = new Set<string>();
    for (const [id, s] of this.#sessions) {
      if (this.#live(s)) accounts.add(s.accountId);
      else this.#remove(id);
    }
    return [...accounts];
  }

  async sessionFor(
    accountId: string,
    prefer?: string,
  ): Promise<{ session: Session; ref: string } | undefined> {
    // Map order is last-use order: the newest use is last.
    const ids = [...(this.#byAccount.get(accountId)?.keys() ?? [])].reverse();
    if (prefer)
      for (const id of ids) {
        const held = this.#sessions.get(id);
        if (held && this.#live(held) && keyFingerprint(held.keyHash) === prefer) {
          const session = await this.get(id);
          if (session) return { session, ref: id };
        }
      }
    for (const id of ids) {
      const session = await this.get(id);
      if (session) return { session, ref: id };
    }
    return undefined;
  }

  async holdsKey(accountId: string, fingerprint: string): Promise<boolean> {
    for (const s of this.#byAccount.get(accountId)?.values() ?? [])
      if (this.#live(s) && keyFingerprint(s.keyHash) === fingerprint) return true;
    return false;
  }

  async refuseKey(refused: Pick<Session, 'accountId' | 'keyHash'>): Promise<void> {
    for (const [id, s] of this.#sessions) if (s.keyHash === refused.keyHash) this.#remove(id);
  }

  #live(s: Session): boolean {
    const now = this.now();
    return now - s.lastSeenAt <= this.limits.idleMs && now - s.createdAt <= this.limits.absoluteMs;
  }

  /** Expired sessions leave on their next use; they are not counted here. */
  async count(): Promise<number> {
    let live = 0;
    for (const s of this.#sessions.values()) if (this.#live(s)) live++;
    return live;
  }
}

const clientKey = (s: Pick<Session, 'accountId' | 'client'>) => `${s.accountId}\n${s.client ?? ''}`;
