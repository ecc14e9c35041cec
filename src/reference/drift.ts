import { createHash } from 'node:crypto';
import type { Confidence, UpstreamProperty } from '../contract/index.ts';

/**
 * REFERENCE_DRIFT_PERCENT: a share of the records is re-verified every minute the service is up, so a
 * review checked again a minute later finds changes (for demos and tests of "Check again"). Which records
 * drift, and how, follows from the seed and the record's id alone: the same run always tells the same story.
 */
export interface DriftOptions {
  /** 0-100; 0 (the default) leaves every record as stored. */
  percent: number;
  seed: number;
  /** When the service started (epoch ms): minute 0 answers every record as stored. */
  startedAt: number;
  now: () => number;
}

export type Drift = (p: UpstreamProperty) => UpstreamProperty;

const NO_DRIFT: Drift = (p) => p;
const STEP: Record<Confidence, Confidence> = { high: 'medium', medium: 'high', low: 'medium' };

export function createDrift(options: DriftOptions): Drift {
  if (options.percent <= 0) return NO_DRIFT;
  const threshold = Math.round(options.percent * 100);
  return (p) => {
    const h = createHash('sha256').update(`${options.seed}:drift:${p.property_id}`).digest();
    if (h.readUInt16BE(0) % 10_000 >= threshold) return p;
    const minute = Math.floor((options.now() - options.startedAt) / 60_000);
    if (minute <= 0) return p;
    // Re-verified every minute: its date moves 30 days closer to today each minute (so a check a minute after
    // another finds a newer one), never past today. A third of them change confidence on odd minutes, a sixth
    // move to the state's parcel programme as their source (a re-verification by another agency).
    const today = new Date(options.now()).toISOString().slice(0, 10);
    const moved = new Date(Date.parse(`${p.last_verified}T00:00:00Z`) + minute * 30 * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const newest = moved < today ? moved : today;
    const drifted: UpstreamProperty = {
      ...p,
      last_verified: newest > p.last_verified ? newest : p.last_verified,
    };
    const variant = (h[2] ?? 0) % 6;
    if (variant < 2 && minute % 2 === 1) drifted.confidence = STEP[p.confidence];
    if (variant === 2) drifted.source = `${p.state} Statewide Parcel Program`;
    return drifted;
  };
}
