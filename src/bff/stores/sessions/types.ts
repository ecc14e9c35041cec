import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../../../contract/index.ts';

export interface Session {
  /** The API key. It lives here, on the server, and nowhere else. */
  apiKey: string;
  /** sha256 of the key: the account's identity for caches and budgets, never the key itself. */
  keyHash: string;
  account: Account;
  /**
   * Who the data belongs to (reviews, the audit trail): one-way from the account id the service gave at
   * sign-in, so every key of one account shares it; from the key's hash when the service names no account.
   */
  accountId: string;
  /** The session's own random id for the audit trail (never the cookie); absent in older records. */
  auditRef?: string;
  /**
   * Where the sign-in came from (clientGroup: an IPv4 address or an IPv6 /64), for choosing whose session goes
   * when the store is full (see EVICTION); never shown. Absent in-process and in older records.
   */
  client?: string;
  createdAt: number;
  lastSeenAt: number;
}

/** Behind an interface: several replicas will share sessions through Redis. */
export interface SessionStore {
  /**
   * A new session. Over the cap (SESSION_MAX_COUNT) one goes, chosen so that an anonymous flood of sign-ins
   * (the demo's public keys make them free) cannot empty the store of other people's sessions: it belongs to
   * the account holding the most sessions, the new one counted (a flood lands on its own account: the demo's,
   * or the one key it has); within the new session's own account, its own client address's oldest goes first.
   * So a flood from one address evicts its own sessions, a flood from many addresses on one account evicts that
   * account's oldest, and a signed-in agent of another account keeps an established session. Sessions already
   * expired go before any of that.
   */
  create(session: Omit<Session, 'createdAt' | 'lastSeenAt'>): Promise<string>;
  /** The live session, its idle clock reset; undefined when unknown or expired. */
  get(id: string): Promise<Session | undefined>;
  delete(id: string): Promise<void>;
  /** Live sessions, for the sessions gauge (metrics); absent when a store cannot count cheaply. */
  count?(): Promise<number>;
  /** Is a shared store reachable (for /readyz)? Absent: in-process memory, always there. */
  ping?(): Promise<boolean>;
  /** Accounts with at least one live session: the review worker works only their rows. */
  liveAccounts(): Promise<string[]>;
  /**
   * A live session of the account, most recently used first, with a handle to end it (never the cookie in a
   * shared store); its idle clock is reset, so a running review keeps it alive up to the absolute timeout. With
   * `prefer` (a key's fingerprint: a review's owner's), a live session of that key comes first.
   */
  sessionFor(accountId: string, prefer?: string): Promise<{ session: Session; ref: string } | undefined>;
  /**
   * Is a live session of the account signed in with the key of fingerprint `fingerprint`? A look, not a use: no
   * session's idle clock is reset (a demo visitor's scheduled check would otherwise keep an abandoned session
   * alive), and every session of the account is looked at, not only the latest used (hostile review H16-3, -4).
   */
  holdsKey(accountId: string, fingerprint: string): Promise<boolean>;
  /**
   * The service refused this key (401): every session holding it ends, whoever signed in with it and whichever
   * replica lends it, so neither a browser nor the review worker sends it again. Called by refused-keys.ts alone,
   * the owner of what a refused key means; an account left with no session has none live, and its reviews wait
   * for a sign-in.
   */
  refuseKey(refused: Pick<Session, 'accountId' | 'keyHash'>): Promise<void>;
}

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
  maxSessions: number;
}

export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/**
 * The name of an account for scoping stored data: one-way from the service's account id when it gives one
 * (every key of the account shares it), else from the key's hash. Never reveals the key.
 */
export function accountIdFor(keyHash: string, upstreamAccountId?: string | null): string {
  const basis = upstreamAccountId
    ? `proplens-account-id:${upstreamAccountId}`
    : `proplens-account:${keyHash}`;
  return createHash('sha256').update(basis).digest('base64url').slice(0, 22);
}

/**
 * Fingerprints of the keys seen lately: each is a SHA-256, and the same few keys are named thousands of times (every
 * audit entry, every review row's carrier, the worker choosing a review owner's session). Emptied when full, so it
 * stays small whatever keys come.
 */
const fingerprints = new Map<string, string>();

/** A short, one-way name of a key for people ("started by key 3f9a1c2e"): never the key, never its hash. */
export function keyFingerprint(keyHash: string): string {
  let f = fingerprints.get(keyHash);
  if (f === undefined) {
    if (fingerprints.size >= 10_000) fingerprints.clear();
    f = createHash('sha256').update(`proplens-key-fingerprint:${keyHash}`).digest('hex').slice(0, 8);
    fingerprints.set(keyHash, f);
  }
  return f;
}

/** The session's name in the audit trail: random, short, and unrelated to the cookie. */
export function newAuditRef(): string {
  return randomBytes(9).toString('base64url');
}

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}
