import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Lane } from '../../../contract/index.ts';
import {
  type AttemptResult,
  type BudgetState,
  type BudgetStore,
  DEFAULT_WINDOW_MS,
  type Decision,
  INTERACTIVE_RESERVE,
  MAX_WINDOW_MS,
  NO_HEADERS_CONCURRENCY,
  PACE_TOLERANCE_MS,
  type RateView,
  RESERVE_LEND_AFTER_MS,
  RESERVE_RELEASE_MS,
  RESET_MARGIN_MS,
  SAME_WINDOW_MS,
  UNKNOWN_RESET_WAIT_MS,
  view,
} from '../../upstream/budget.ts';
import type { RedisConnection } from '../redis-connection.ts';
import type { RedisKeys } from '../redis-keys.ts';

/*
 * upstream/budget.ts's reserve() and observe(), ported line for line to Lua so that Redis runs each decision
 * atomically for every replica: the state is one hash per account, and the requests in flight are a sorted set
 * of reservations scored by when they expire, so a replica that dies holding slots gives them back after
 * INFLIGHT_TTL instead of never. Numbers are stored with 17 significant digits (exact doubles) and returned as
 * strings (Lua numbers would come back truncated to integers). The same constants, interpolated from budget.ts.
 * redis-budget.test.ts runs one table of cases, and random sequences, on this and on the memory store.
 */
const PRELUDE = `
local stateKey, inflightKey = KEYS[1], KEYS[2]
local RESET_MARGIN, SAME_WINDOW = ${RESET_MARGIN_MS}, ${SAME_WINDOW_MS}
local RESERVE_SHARE, RESERVE_RELEASE = ${INTERACTIVE_RESERVE}, ${RESERVE_RELEASE_MS}
local RESERVE_LEND_AFTER = ${RESERVE_LEND_AFTER_MS}
local NO_HEADERS_CAP, DEFAULT_WINDOW = ${NO_HEADERS_CONCURRENCY}, ${DEFAULT_WINDOW_MS}
local MAX_WINDOW, UNKNOWN_RESET_WAIT = ${MAX_WINDOW_MS}, ${UNKNOWN_RESET_WAIT_MS}
local PACE_TOLERANCE = ${PACE_TOLERANCE_MS}
local FIELDS = {'known', 'noHeaders', 'limit', 'remaining', 'resetAt', 'previousResetAt', 'provisional',
  'windowMs', 'minSeen', 'nextReviewAt', 'blockedUntil', 'interactiveAt'}

local function fmt(x)
  if x == nil then return '' end
  return string.format('%.17g', x)
end
local function load()
  local s = {}
  for _, f in ipairs(FIELDS) do s[f] = 0 end
  local raw = redis.call('HGETALL', stateKey)
  for i = 1, #raw, 2 do s[raw[i]] = tonumber(raw[i + 1]) or 0 end
  return s
end
local function save(s, now, keep)
  local args = {}
  for _, f in ipairs(FIELDS) do
    args[#args + 1] = f
    args[#args + 1] = fmt(s[f])
  end
  redis.call('HSET', stateKey, unpack(args))
  redis.call('PEXPIRE', stateKey, math.ceil(math.max(s.resetAt, s.blockedUntil, now) - now + keep))
end
-- Requests in flight: reservations not yet released, less those past their safety expiry.
local function inflightAt(now)
  redis.call('ZREMRANGEBYSCORE', inflightKey, '-inf', fmt(now))
  return redis.call('ZCARD', inflightKey)
end
`;

/** reserve(): ARGV lane, now, reservation id, its expiry, ms to keep the state after its window. */
const RESERVE_SCRIPT = `${PRELUDE}
local lane, now, id, expiresAt, keep = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local s = load()
local inflight = inflightAt(now)
local function grant()
  if lane == 'interactive' then s.interactiveAt = now end
  redis.call('ZADD', inflightKey, fmt(expiresAt), id)
  redis.call('PEXPIRE', inflightKey, math.ceil(expiresAt - now) + 1000)
  save(s, now, keep)
  return {'1'}
end
local function refuse(retryAt, resetAt)
  save(s, now, keep)
  return {'0', fmt(retryAt), fmt(resetAt)}
end
local function refill()
  local window = DEFAULT_WINDOW
  if s.windowMs > 0 then window = s.windowMs end
  s.previousResetAt = s.resetAt
  local nextReset = s.resetAt + window
  if nextReset <= now then nextReset = now + window end
  s.resetAt = nextReset
  s.remaining = math.max(0, s.limit - inflight)
  s.minSeen = s.limit
  s.provisional = 1
  s.nextReviewAt = now
end

if now < s.blockedUntil then return refuse(s.blockedUntil, s.blockedUntil) end
if s.known ~= 1 then
  local cap = 1
  if s.noHeaders == 1 then cap = NO_HEADERS_CAP end
  if inflight >= cap then return refuse(nil, nil) end
  return grant()
end
if now >= s.resetAt + RESET_MARGIN then refill() end
if s.remaining <= 0 then return refuse(s.resetAt + RESET_MARGIN, s.resetAt) end
if lane == 'review' then
  local left = s.resetAt - now
  local held = 0
  if left > RESERVE_RELEASE and now - s.interactiveAt < RESERVE_LEND_AFTER then
    held = math.min(math.ceil(s.limit * RESERVE_SHARE), s.limit - 1)
  end
  local usable = s.remaining - held
  if usable <= 0 then return refuse(s.resetAt - RESERVE_RELEASE, s.resetAt) end
  if now < s.nextReviewAt - PACE_TOLERANCE then return refuse(s.nextReviewAt - PACE_TOLERANCE, nil) end
  s.nextReviewAt = math.max(s.nextReviewAt, now) + math.max(0, left - RESERVE_RELEASE) / usable
end
s.remaining = s.remaining - 1
return grant()
`;

/**
 * observe(): ARGV reservation id ('' if none), now, kind ('none' | 'answer'), status, has rate ('1' | '0'),
 * limit, remaining, resetAt, ms to keep the state after its window.
 */
const OBSERVE_SCRIPT = `${PRELUDE}
local id, now, kind, status = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local hasRate = ARGV[5] == '1'
local rLimit, rRemaining, rReset = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local keep = tonumber(ARGV[9])
if id ~= '' then redis.call('ZREM', inflightKey, id) end
local inflight = inflightAt(now)
if kind == 'none' then return 0 end
local s = load()

if not hasRate then
  if status == 429 then
    s.blockedUntil = math.max(s.blockedUntil, now + UNKNOWN_RESET_WAIT)
    if s.known == 1 then s.remaining = 0 end
  elseif s.known ~= 1 then
    s.noHeaders = 1
  end
  save(s, now, keep)
  return 1
end
s.known = 1
s.noHeaders = 0
s.limit = rLimit
s.windowMs = math.max(s.windowMs, math.min(rReset - now, MAX_WINDOW))
if status == 429 then
  s.blockedUntil = math.max(s.blockedUntil, rReset)
  s.resetAt = math.max(rReset, now)
  s.remaining = 0
  s.minSeen = 0
  s.provisional = 0
elseif s.resetAt == 0 or rReset > s.resetAt + SAME_WINDOW
    or (s.provisional == 1 and rReset > s.previousResetAt + SAME_WINDOW) then
  if s.provisional ~= 1 and s.resetAt ~= 0 then s.previousResetAt = s.resetAt end
  local fromHeader = rRemaining - inflight
  if s.provisional == 1 then
    s.remaining = math.max(0, math.min(s.remaining, fromHeader))
  else
    s.remaining = math.max(0, fromHeader)
  end
  s.resetAt = rReset
  s.minSeen = rRemaining
  s.provisional = 0
  if s.nextReviewAt == 0 then s.nextReviewAt = now end
elseif rReset <= s.previousResetAt + SAME_WINDOW and rReset < s.resetAt - SAME_WINDOW then
  -- a late answer from an ended window: it says nothing of this one
else
  s.minSeen = math.min(s.minSeen, rRemaining)
  if inflight == 0 then
    s.remaining = math.max(0, s.minSeen)
  else
    s.remaining = math.max(0, math.min(s.remaining, rRemaining - inflight))
  end
end
save(s, now, keep)
return 1
`;

export interface RedisBudgetOptions {
  /**
   * How long a reservation counts as in flight if its replica never releases it (crashed): longer than any
   * attempt can take (UPSTREAM_TIMEOUT_MS covers headers and body), so a live one never expires early.
   */
  inflightTtlMs?: number;
  /**
   * A decision to wait for an answer in flight: that answer may come back to another replica, whose release
   * does not wake this one's scheduler. So such waits become a short retry (a poll) instead.
   */
  releasePollMs?: number;
  logger?: Logger;
}

/** How long an account's state outlives its window: what it learnt (limit, window) saves a probe. */
const STATE_KEEP_MS = 3_600_000;

/**
 * The rate budget in Redis: every replica reserves from the same per-account budget, atomically, so together
 * they never send more than the account's limit; the upstream's headers correct it after each answer, and a
 * 429 blocks the account for all of them.
 */
export class RedisBudgetStore implements BudgetStore {
  readonly #reserve: (keys: string[], args: (string | number)[]) => Promise<unknown>;
  readonly #observe: (keys: string[], args: (string | number)[]) => Promise<unknown>;
  readonly #replica = randomBytes(6).toString('base64url');
  #seq = 0;
  /** This replica's reservations in flight, per account: release hands one back (they are interchangeable). */
  readonly #held = new Map<string, string[]>();
  readonly #inflightTtlMs: number;
  readonly #releasePollMs: number;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly options: RedisBudgetOptions = {},
  ) {
    this.#reserve = redis.script(RESERVE_SCRIPT);
    this.#observe = redis.script(OBSERVE_SCRIPT);
    this.#inflightTtlMs = options.inflightTtlMs ?? 30_000;
    this.#releasePollMs = options.releasePollMs ?? 50;
  }

  #keys(key: string) {
    return [this.keys.budget(key), this.keys.budgetInflight(key)];
  }

  async reserve(key: string, lane: Lane, now: number): Promise<Decision> {
    const id = `${this.#replica}:${this.#seq++}`;
    const reply = (await this.redis.run(() =>
      this.#reserve(this.#keys(key), [lane, now, id, now + this.#inflightTtlMs, STATE_KEEP_MS]),
    )) as string[];
    if (reply[0] === '1') {
      const held = this.#held.get(key) ?? [];
      held.push(id);
      this.#held.set(key, held);
      return { ok: true };
    }
    const retryAt = reply[1] ? Number(reply[1]) : null;
    const resetAt = reply[2] ? Number(reply[2]) : null;
    return { ok: false, retryAt: retryAt ?? now + this.#releasePollMs, resetAt };
  }

  /** Never throws: if Redis failed just now, the reservation expires by itself and the next answer corrects. */
  async observe(key: string, result: AttemptResult, now: number): Promise<void> {
    const held = this.#held.get(key);
    const id = held?.shift() ?? '';
    if (held?.length === 0) this.#held.delete(key);
    const rate = result.kind === 'answer' ? result.rate : null;
    try {
      await this.redis.run(() =>
        this.#observe(this.#keys(key), [
          id,
          now,
          result.kind,
          result.kind === 'answer' ? result.status : 0,
          rate ? '1' : '0',
          rate?.limit ?? 0,
          rate?.remaining ?? 0,
          rate?.resetAt ?? 0,
          STATE_KEEP_MS,
        ]),
      );
    } catch {
      this.options.logger?.warn('rate budget not updated: Redis unavailable');
    }
  }

  /** For display only, so a Redis failure shows no meter rather than failing the answer it decorates. */
  async view(key: string, now: number): Promise<RateView | null> {
    try {
      const raw = await this.redis.run((r) => r.hgetall(this.keys.budget(key)));
      return view(toState(raw), now);
    } catch {
      return null;
    }
  }
}

function toState(raw: Record<string, string>): BudgetState | undefined {
  if (!raw.known) return undefined;
  const n = (field: string) => Number(raw[field] ?? 0);
  return {
    known: n('known') === 1,
    noHeaders: n('noHeaders') === 1,
    limit: n('limit'),
    remaining: n('remaining'),
    resetAt: n('resetAt'),
    previousResetAt: n('previousResetAt'),
    provisional: n('provisional') === 1,
    windowMs: n('windowMs'),
    minSeen: n('minSeen'),
    inflight: 0,
    nextReviewAt: n('nextReviewAt'),
    blockedUntil: n('blockedUntil'),
    interactiveAt: n('interactiveAt'),
  };
}
