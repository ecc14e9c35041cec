import { newAuditRef, newSessionId, type Session, type SessionLimits, type SessionStore } from './types.ts';

export class MemorySessionStore implements SessionStore {
  /** In last-use order (get() moves a session to the end): the first is the one idle longest. */
  readonly #sessions = new Map<string, Session>();
  /** Sessions held per account, for choosing whose goes over the cap (SessionStore.create). */
  readonly #perAccount = new Map<string, number>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async create(data: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string> {
    const id = newSessionId();
    const now = this.now();
    this.#sessions.set(id, { auditRef: newAuditRef(), ...data, createdAt: now, lastSeenAt: now });
    this.#perAccount.set(data.accountId, (this.#perAccount.get(data.accountId) ?? 0) + 1);
    while (this.#sessions.size > this.limits.maxSessions) this.#remove(this.#victim(id, data));
    return id;
  }

  /** Who goes over the cap (the rule is SessionStore.create's): never the session just made. */
  #victim(newId: string, made: Pick<Session, 'accountId' | 'client'>): string {
    const [oldestId, oldest] = this.#sessions.entries().next().value as [string, Session];
    if (oldestId !== newId && !this.#live(oldest)) return oldestId;
    let top = made.accountId;
    let most = this.#perAccount.get(top) ?? 0;
    for (const [account, n] of this.#perAccount) {
      if (n > most) [top, most] = [account, n];
    }
    let fallback: string | undefined;
    for (const [id, s] of this.#sessions) {
      if (id === newId || s.accountId !== top) continue;
      if (top !== made.accountId || made.client === undefined || s.client === made.client) return id;
      fallback ??= id;
    }
    return fallback ?? oldestId;
  }

  #remove(id: string) {
    const s = this.#sessions.get(id);
    if (!s) return;
    this.#sessions.delete(id);
    const n = (this.#perAccount.get(s.accountId) ?? 1) - 1;
    if (n > 0) this.#perAccount.set(s.accountId, n);
    else this.#perAccount.delete(s.accountId);
  }

  async get(id: string): Promise<Session | undefined> {
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    if (!this.#live(s)) {
      this.#remove(id);
      return undefined;
    }
    s.lastSeenAt = this.now();
    this.#sessions.delete(id);
    this.#sessions.set(id, s);
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

  async sessionFor(accountId: string): Promise<{ session: Session; ref: string } | undefined> {
    // Map order is last-use order: the newest use is last.
    const ids = [...this.#sessions].filter(([, s]) => s.accountId === accountId).map(([id]) => id);
    for (const id of ids.reverse()) {
      const session = await this.get(id);
      if (session) return { session, ref: id };
    }
    return undefined;
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
