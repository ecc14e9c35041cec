import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, isTimeZone, wallTime, zonesFormatted } from './schedule.ts';

/*
 * Zone names come from any signed-in client (the monitor's schedule). Intl reads them in any case, so the
 * formatters are kept by the zone's canonical name (hostile review F6: kept by the name as sent, 6,000 spellings
 * took a server from 116 to 317 MB).
 */
describe('time zones as clients spell them', () => {
  it('keeps one formatter per zone however many spellings arrive, and reads each spelling the same', () => {
    const zone = 'America/Argentina/ComodRivadavia';
    const at = Date.parse('2026-11-26T15:00:00Z');
    expect(isTimeZone(zone)).toBe(true);
    const before = zonesFormatted();
    const expected = wallTime(at, zone);
    // 1,000 spellings of one zone, each a different mix of upper and lower case.
    for (let n = 0; n < 1_000; n++) {
      const spelled = [...zone]
        .map((c, i) => ((n >> (i % 10)) & 1 ? c.toUpperCase() : c.toLowerCase()))
        .join('');
      expect(isTimeZone(spelled)).toBe(true);
      expect(wallTime(at, spelled)).toEqual(expected);
    }
    expect(zonesFormatted() - before).toBeLessThanOrEqual(1);
  });

  it('names a zone as the runtime does, and refuses one it does not know', () => {
    expect(canonicalTimeZone('america/new_YORK')).toBe('America/New_York');
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(() => canonicalTimeZone('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
