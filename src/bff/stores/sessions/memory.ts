import { newAuditRef, newSessionId, type Session, type SessionLimits, type SessionStore } from './types.ts';

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async create(data: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string> {
    const id = newSessionId();
    const now = this.now();
    this.#sessions.set(id, { auditRef: newAuditRef(), ...data, createdAt: now, lastSeenAt: now });
    // Over the cap, the session idle longest goes first (Map order is last-use order, see get()).
    while (this.#sessions.size > this.limits.maxSessions) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    return id;
  }

  async get(id: string): Promise<Session | undefined> {
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    const now = this.now();
    if (now - s.lastSeenAt > this.limits.idleMs || now - s.createdAt > this.limits.absoluteMs) {
      this.#sessions.delete(id);
      return undefined;
    }
    s.lastSeenAt = now;
    this.#sessions.delete(id);
    this.#sessions.set(id, s);
    return s;
  }

  async delete(id: string): Promise<void> {
    this.#sessions.delete(id);
  }

  async liveAccounts(): Promise<string[]> {
    const accounts = new Set<string>();
    for (const [id, s] of this.#sessions) if (this.#live(id, s)) accounts.add(s.accountId);
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
    for (const [id, s] of this.#sessions) if (s.keyHash === refused.keyHash) this.#sessions.delete(id);
  }

  #live(id: string, s: Session): boolean {
    const now = this.now();
    if (now - s.lastSeenAt <= this.limits.idleMs && now - s.createdAt <= this.limits.absoluteMs) return true;
    this.#sessions.delete(id);
    return false;
  }

  /** Expired sessions leave on their next use; they are not counted here. */
  async count(): Promise<number> {
    const now = this.now();
    let live = 0;
    for (const s of this.#sessions.values()) {
      if (now - s.lastSeenAt <= this.limits.idleMs && now - s.createdAt <= this.limits.absoluteMs) live++;
    }
    return live;
  }
}
