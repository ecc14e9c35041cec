import { createRng } from './dataset/prng.ts';

/**
 * Misbehaviour on demand, for tests and demos. Seeded: the same seed gives the same sequence of faults for
 * the same sequence of requests.
 */
export interface Faults {
  /** Added latency per request, milliseconds. */
  latencyMs: number;
  /** Share of requests answered 500 or 503. */
  error: number;
  /** Share of 200 answers whose body is cut mid-JSON. */
  malformed: number;
  /** Share of requests answered 429 regardless of budget, with a reset a few seconds out. */
  storm: number;
  /** Share of requests whose connection is dropped without an answer. */
  drop: number;
  seed: number;
}

export const NO_FAULTS: Faults = { latencyMs: 0, error: 0, malformed: 0, storm: 0, drop: 0, seed: 1 };

/** Parses `REFERENCE_FAULTS`, e.g. `latency=50,error=0.1,malformed=0.05,storm=0.02,drop=0.01,seed=7`. */
export function parseFaults(text: string | undefined): Faults {
  const faults: Faults = { ...NO_FAULTS };
  const spec = (text ?? '').trim();
  if (spec === '' || spec === 'none') return faults;
  const problems: string[] = [];
  for (const part of spec.split(',')) {
    const [name = '', raw = ''] = part.split('=').map((s) => s.trim());
    const value = Number(raw);
    const key = name === 'latency' ? 'latencyMs' : name;
    if (!['latencyMs', 'error', 'malformed', 'storm', 'drop', 'seed'].includes(key)) {
      problems.push(`unknown fault "${name}" (latency, error, malformed, storm, drop, seed)`);
    } else if (!Number.isFinite(value) || value < 0) {
      problems.push(`${name}=${raw} is not a non-negative number`);
    } else if (!['latencyMs', 'seed'].includes(key) && value > 1) {
      problems.push(`${name}=${raw} is a share and must be between 0 and 1`);
    } else {
      faults[key as keyof Faults] = value;
    }
  }
  if (problems.length > 0) throw new Error(`REFERENCE_FAULTS: ${problems.join('; ')}`);
  return faults;
}

export type FaultAction = 'none' | 'error500' | 'error503' | 'storm' | 'drop' | 'malformed';

export function createFaultPicker(faults: Faults): () => FaultAction {
  const rng = createRng(faults.seed);
  return () => {
    const r = rng.next();
    let edge = faults.drop;
    if (r < edge) return 'drop';
    edge += faults.storm;
    if (r < edge) return 'storm';
    edge += faults.error;
    if (r < edge) return rng.chance(0.5) ? 'error500' : 'error503';
    edge += faults.malformed;
    if (r < edge) return 'malformed';
    return 'none';
  };
}
