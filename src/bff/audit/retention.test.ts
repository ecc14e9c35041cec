import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { tempDatabaseAll } from '../test-support/temp-database.ts';
import { createAuditTrail } from './audit-trail.ts';

/*
 * AUDIT_RETENTION_DAYS as an operator reads it: entries older than that many days go, younger ones stay, and 0
 * keeps the trail for ever. Entries are dated around a fixed clock, a day either side of each boundary.
 */

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-25T12:00:00Z');

const temp = tempDatabaseAll('retention');

const entry = (accountId: string, daysOld: number) =>
  auditEntry({ at: NOW - daysOld * DAY, account_id: accountId, query: `${daysOld} days old` });

const trailWith = (retentionDays: number) =>
  createAuditTrail({
    database: temp.database,
    logger: createLogger('silent'),
    retentionDays,
    now: () => NOW,
  });

async function left(accountId: string): Promise<string[]> {
  const trail = trailWith(0);
  // Newest first, as the Activity page reads them.
  return (await trail.store.page(accountId, {}, null, 100)).map((e) => e.query ?? '');
}

describe('audit retention', () => {
  it('keeps every entry younger than AUDIT_RETENTION_DAYS and removes those older', async () => {
    const trail = trailWith(365);
    await trail.store.append([entry('kept-a-year', 366), entry('kept-a-year', 364), entry('kept-a-year', 1)]);
    expect(await trail.sweep()).toBe(1);
    expect(await left('kept-a-year')).toEqual(['1 days old', '364 days old']);
    // A second sweep has nothing left to do.
    expect(await trail.sweep()).toBe(0);
  });

  it('keeps the trail for ever with 0', async () => {
    const trail = trailWith(0);
    await trail.store.append([
      entry('kept-for-ever', 3_650),
      entry('kept-for-ever', 400),
      entry('kept-for-ever', 0),
    ]);
    expect(await trail.sweep()).toBe(0);
    expect(await left('kept-for-ever')).toEqual(['0 days old', '400 days old', '3650 days old']);
  });
});
