/**
 * The reference service's clock. By default the system's; with `REFERENCE_CLOCK=controllable` a test can move it
 * forward (`POST /_test/clock`), so a journey that would wait out rate windows ends them at once instead. The
 * clock still runs at the system's pace between moves: what a browser sees of a running review stays live.
 *
 * In `npm start` the embedded reference and the BFF share one clock (src/main.ts), so the BFF's pacing, its
 * rate-limit holds and the reference's windows all move together; each listener re-arms its timers on a move.
 */
export interface Clock {
  now(): number;
  /** Called after every move forward; returns a function that stops listening. Absent on the system clock. */
  onAdvance?(listener: () => void): () => void;
}

export const SYSTEM_CLOCK: Clock = { now: Date.now };

/** The longest single move: a day is more than any rate window a test waits out. */
export const MAX_ADVANCE_MS = 86_400_000;

export class ControllableClock implements Clock {
  #offsetMs = 0;
  readonly #listeners = new Set<() => void>();

  readonly now = (): number => Date.now() + this.#offsetMs;

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the clock forward by `ms` (never back: windows, leases and deadlines only ever end sooner). */
  advance(ms: number): void {
    if (!Number.isInteger(ms) || ms < 1 || ms > MAX_ADVANCE_MS) {
      throw new RangeError(`a move must be a whole number of milliseconds from 1 to ${MAX_ADVANCE_MS}`);
    }
    this.#offsetMs += ms;
    for (const listener of [...this.#listeners]) listener();
  }

  onAdvance(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** `REFERENCE_CLOCK`: `system` (the default) or `controllable`. */
export function parseClockSetting(text: string | undefined): 'system' | 'controllable' {
  const value = (text ?? '').trim() || 'system';
  if (value !== 'system' && value !== 'controllable') {
    throw new Error(`"${text}" is not a clock: system (the default) or controllable (tests move it forward)`);
  }
  return value;
}
