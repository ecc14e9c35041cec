import type { RateLimit } from '../../../../contract/index.ts';
import { formatCount, formatNumber } from '../../../lib/format.ts';

/**
 * How many lookups a minute the review can go at: what the rate limit allows (limit per window, when the BFF
 * knows the window), else what it has lately done. Null when neither is known yet.
 */
export function lookupsPerMinute(rateLimit: RateLimit | null, recentPerMinute: number): number | null {
  if (rateLimit?.windowS && rateLimit.limit > 0) return (rateLimit.limit * 60) / rateLimit.windowS;
  return recentPerMinute > 0 ? recentPerMinute : null;
}

function formatRate(perMinute: number, unit: 'lookup' | 'row'): string {
  const n = perMinute >= 10 ? formatCount(Math.round(perMinute)) : formatNumber(perMinute, 1);
  return `${n} ${n === '1' ? unit : `${unit}s`} a minute`;
}

/**
 * "about 14 min left at 60 lookups a minute" (cached rows may make it quicker: hence "about"). `unit` 'row' for
 * a pace observed over rows (repeats and cached rows count as rows, not as lookups of the plan).
 */
export function describeEta(
  lookupsLeft: number,
  perMinute: number,
  unit: 'lookup' | 'row' = 'lookup',
): string {
  const minutes = lookupsLeft / perMinute;
  let left: string;
  if (minutes < 1) left = 'less than a minute left';
  else if (minutes < 60) left = `about ${Math.ceil(minutes)} min left`;
  else {
    const h = Math.floor(minutes / 60);
    const m = Math.ceil(minutes - h * 60);
    left = m === 0 || m === 60 ? `about ${m === 60 ? h + 1 : h} h left` : `about ${h} h ${m} min left`;
  }
  return `${left} at ${formatRate(perMinute, unit)}`;
}

/** Shortest and longest stretch the pace is measured over. */
const MIN_WINDOW_MS = 60_000;
const MAX_WINDOW_MS = 15 * 60_000;
/** No pace until the run has been watched this long and has answered a row. */
const SETTLE_MS = 5_000;
/** The share of the time watched that the pace is measured over. */
const WINDOW_SHARE = 0.75;

/**
 * The pace a running review achieves, in rows a minute, for its time left: rows answered over a window that
 * grows with the time watched (three quarters of it, one to fifteen minutes). A burst at the start (cached rows, repeats)
 * or a wait for the rate limit moves it less the longer the run goes, so the time left does not swing (it went
 * 2 h 53 m, 5 h 44 m, 4 h 27 m in seven minutes when measured over the last two minutes alone), and it follows
 * a lasting change of pace within minutes. Sampled by the page every few seconds and at every answer.
 */
export class PaceTracker {
  #samples: { t: number; done: number }[] = [];
  /** When the run was first seen, and its count then. */
  #since: { t: number; done: number } | null = null;

  /** Rows done at time `t` (epoch ms). A count going down is a new run: the pace starts again. */
  sample(t: number, done: number): void {
    const last = this.#samples.at(-1);
    if (last && (done < last.done || t < last.t)) this.#samples = [];
    if (this.#samples.length === 0) this.#since = { t, done };
    if (last && t === last.t && this.#samples.length > 0) last.done = done;
    else this.#samples.push({ t, done });
    // Kept: the longest window back from now, and the one sample before it (to read the count at its start).
    while (this.#samples.length > 2 && t - (this.#samples[1] as { t: number }).t > MAX_WINDOW_MS)
      this.#samples.shift();
  }

  /** Rows a minute as of the last sample; null until the run has settled (watched 5 s and a row answered). */
  perMinute(): number | null {
    const last = this.#samples.at(-1);
    const since = this.#since;
    if (!last || !since || last.t - since.t < SETTLE_MS || last.done === since.done) return null;
    const window = Math.min(MAX_WINDOW_MS, Math.max(MIN_WINDOW_MS, (last.t - since.t) * WINDOW_SHARE));
    const from = Math.max(since.t, last.t - window);
    const rows = last.done - this.#doneAt(from);
    return rows > 0 ? rows / ((last.t - from) / 60_000) : null;
  }

  /** The count at time `t`, between the samples around it (rows arrive through the interval). */
  #doneAt(t: number): number {
    const s = this.#samples;
    for (let i = s.length - 1; i > 0; i--) {
      const a = s[i - 1] as { t: number; done: number };
      const b = s[i] as { t: number; done: number };
      if (a.t <= t) return a.done + ((b.done - a.done) * (t - a.t)) / (b.t - a.t);
    }
    return (s[0] as { done: number }).done;
  }
}
