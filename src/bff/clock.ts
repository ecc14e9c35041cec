/**
 * The time the BFF paces the upstream by: the system's, or, in `npm start` with `REFERENCE_CLOCK=controllable`,
 * the embedded reference's clock that tests move forward (src/main.ts passes it in). Rate windows, holds and the
 * review lane's spacing read it, and whatever waits for a moment re-arms when it moves, so both sides of the
 * upstream see the same time, and review rows wait by it (due, leased, answered). Sessions and the audit
 * trail keep the system's time.
 */
export interface Clock {
  now(): number;
  /** Called after every move forward; returns a function that stops listening. Absent on the system clock. */
  onAdvance?(listener: () => void): () => void;
}

export const SYSTEM_CLOCK: Clock = { now: Date.now };
