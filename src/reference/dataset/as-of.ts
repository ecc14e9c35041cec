/**
 * The reference dataset is deterministic from (seed, count): the same records, ids and dates on every machine.
 * Dates are counted back from this fixed "data as of" day, not from the clock.
 */
export const DATA_AS_OF = '2026-11-01';
export const AS_OF_MS = Date.parse(`${DATA_AS_OF}T00:00:00Z`);
export const DAY_MS = 86_400_000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
