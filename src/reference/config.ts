import { z } from 'zod';
import { parseClockSetting } from './clock.ts';
import { type Dialect, parseDialect } from './dialect.ts';
import { type Faults, parseFaults } from './faults.ts';
import { parseRateRule, type RateRule } from './rate-limiter.ts';

/** The reference service's configuration, from the environment, validated at start. */
export interface ReferenceConfig {
  host: string;
  port: number;
  records: number;
  seed: number;
  dataDir: string;
  rateLimit: RateRule | undefined;
  dialect: Dialect;
  faults: Faults;
  /** Share of records re-verified every minute of uptime (0-100), for demos of "Check again". */
  driftPercent: number;
  /** `controllable`: tests move the service's time forward (`POST /_test/clock`) instead of waiting. */
  clock: 'system' | 'controllable';
}

const intIn = (min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return fallback;
      const n = Number(s.replace(/_/g, ''));
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}, got "${s}"` });
        return z.NEVER;
      }
      return n;
    });

const parsedBy = <T>(parse: (s: string | undefined) => T) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      try {
        return parse(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });

const ReferenceEnv = z.object({
  REFERENCE_HOST: z.string().default('127.0.0.1'),
  REFERENCE_PORT: intIn(0, 65535, 8787),
  REFERENCE_RECORDS: intIn(10, 5_000_000, 1_000_000),
  REFERENCE_SEED: intIn(0, 2 ** 31 - 1, 20261121),
  REFERENCE_DATA_DIR: z.string().default('data'),
  REFERENCE_RATE_LIMIT: parsedBy((s) => (s?.trim() ? parseRateRule(s) : undefined)),
  REFERENCE_DIALECT: parsedBy(parseDialect),
  REFERENCE_FAULTS: parsedBy(parseFaults),
  REFERENCE_DRIFT_PERCENT: intIn(0, 100, 0),
  REFERENCE_CLOCK: parsedBy(parseClockSetting),
});

/** Reads and validates the environment; throws one error listing every bad variable. */
export function readReferenceConfig(env: Record<string, string | undefined>): ReferenceConfig {
  const parsed = ReferenceEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid reference service configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    host: e.REFERENCE_HOST,
    port: e.REFERENCE_PORT,
    records: e.REFERENCE_RECORDS,
    seed: e.REFERENCE_SEED,
    dataDir: e.REFERENCE_DATA_DIR,
    rateLimit: e.REFERENCE_RATE_LIMIT,
    dialect: e.REFERENCE_DIALECT,
    faults: e.REFERENCE_FAULTS,
    driftPercent: e.REFERENCE_DRIFT_PERCENT,
    clock: e.REFERENCE_CLOCK,
  };
}
