import { createHash } from 'node:crypto';
import type { Confidence, UpstreamProperty } from '../contract/index.ts';
import { stateTaxAgency } from './dataset/agencies.ts';

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
    // Re-verified, as a source re-verifies a record: on a recent day, not a month after a date years old
    // ("2019 -> 2019" reads as no news). The first drifted minute dates it 29 days before today, each minute
    // after a day later (a check a minute after another finds a newer one), up to today; a record verified
    // more recently than that keeps its date until the re-verification passes it.
    const reverified = new Date(options.now() - Math.max(0, 30 - minute) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const drifted: UpstreamProperty = {
      ...p,
      last_verified: reverified > p.last_verified ? reverified : p.last_verified,
    };
    const variant = (h[2] ?? 0) % 6;
    if (variant < 2 && minute % 2 === 1) drifted.confidence = STEP[p.confidence];
    // Another agency re-verified it: the state's tax agency, under its own name.
    if (variant === 2) drifted.source = stateTaxAgency(p.state);
    return drifted;
  };
}
