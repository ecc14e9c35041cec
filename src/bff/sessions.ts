import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../contract/index.ts';

export interface Session {
  /** The API key. It lives here, on the server, and nowhere else. */
  apiKey: string;
  /** sha256 of the key: the account's identity for caches and budgets, never the key itself. */
  keyHash: string;
  account: Account;
  createdAt: number;
  lastSeenAt: number;
}

/** Behind an interface: several replicas will share sessions through Redis. */
export interface SessionStore {
  create(session: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string>;
  /** The live session, its idle clock reset; undefined when unknown or expired. */
  get(id: string): Promise<Session | undefined>;
  delete(id: string): Promise<void>;
  /** Live sessions, for the sessions gauge (metrics); absent when a store cannot count cheaply. */
  count?(): Promise<number>;
  /** Is a shared store reachable (for /readyz)? Absent: in-process memory, always there. */
  ping?(): Promise<boolean>;
}

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
  maxSessions: number;
}

export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** The browser's name for an account: one-way from the key's hash, so it can scope stored data but never reveal the key. */
export function accountIdFor(keyHash: string): string {
  return createHash('sha256').update(`proplens-account:${keyHash}`).digest('base64url').slice(0, 22);
}

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async create(data: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string> {
    const id = newSessionId();
    const now = this.now();
    this.#sessions.set(id, { ...data, createdAt: now, lastSeenAt: now });
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
