import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { databaseBackends } from '../../test-support/database-backends.ts';
import { type AuditPage, type NewAuditEntry, type SearchBudget, SqlAuditStore } from './audit-store.ts';
import { fold } from './search-text.ts';

/*
 * The Activity list's text filter does bounded work per page (SqlAuditStore.search): a text no index narrows
 * (one or two characters; or every trigram of it on many entries) walks the trail newest first until its time is
 * spent, and answers with what it found and how far back it searched. Paged on from there, the user sees every
 * matching entry once, newest first, as if the page had not stopped; a text the index narrows is answered as the
 * full pages it always was. The budget here is no time at all: each page walks one range of 7 ids, the
 * smallest step there is, so the trail is crossed in many stops.
 */

const backends = databaseBackends('audit-bounded-search');

const STINGY: SearchBudget = { ms: 0, firstRange: 7, indexMaxEntries: 20, sample: 50 };

const holds = (e: NewAuditEntry, text: string) =>
  [e.query, e.property_id].some((v) => v !== null && fold(v).includes(fold(text)));

/** This account's entries and another's, interleaved so that neither has a run of consecutive ids. */
function trails(accountId: string, otherId: string): { mine: NewAuditEntry[]; all: NewAuditEntry[] } {
  const streets = ['Main St', 'MAIN STREET', 'Oak Dr', 'Zz Top Rd', 'Élysée Ct', 'Abcd Bcde Ln'];
  const mine: NewAuditEntry[] = [];
  const all: NewAuditEntry[] = [];
  for (let i = 0; i < 300; i++) {
    const e = auditEntry({
      at: 1_700_000_000_000 + i * 1_000,
      account_id: i % 4 === 3 ? otherId : accountId,
      query: i % 13 === 6 ? null : `${(i * 37) % 1000} ${streets[(i * 5) % streets.length]}, Springfield`,
      property_id: i % 3 === 0 ? null : `pi_${String((i * 7) % 500).padStart(4, '0')}`,
    });
    all.push(e);
    if (e.account_id === accountId) mine.push(e);
  }
  return { mine, all };
}

describe.each(backends)('a text filter no index narrows, on $name', (backend) => {
  it('pages across each "searched back to" stop without losing, repeating or reordering an entry', async () => {
    const accountId = `acct-${randomUUID()}`;
    const { mine, all } = trails(accountId, `other-${randomUUID()}`);
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite, STINGY);
    await store.append(all);
    while ((await store.follow()) > 0);
    // Two characters and one (no trigram); texts on many entries (every trigram common); one on no entry whose
    // trigrams are all common; a text the index narrows (answered in full pages, never stopped).
    for (const [text, walked] of [
      ['zz', true],
      ['é', true],
      ['12', true],
      ['main st', true],
      ['springfield', true],
      ['abcde', true], // abc, bcd and cde together on many entries, abcde on none
      ['abcd oak', false], // trigrams of two streets, never together: the index answers at once
      ['pi_0042', false],
    ] as const) {
      const expected = mine
        .filter((e) => holds(e, text))
        .map((e) => e.at)
        .reverse();
      const seen: number[] = [];
      const stops: AuditPage[] = [];
      let before: number | null = null;
      for (let pages = 0; ; pages++) {
        if (pages > 200) throw new Error(`${text}: paging never ended`);
        const page: AuditPage = await store.search(accountId, { text }, before, 5);
        for (const e of page.entries) {
          expect(e.query === null || !e.query.includes('\n'), text).toBe(true);
          seen.push(Date.parse(e.at));
        }
        if (page.searchedBackTo !== null) {
          stops.push(page);
          expect(page.entries.length, text).toBeLessThan(5);
          // Every matching entry newer than the stop has been shown, and none older yet.
          expect(seen, text).toEqual(expected.filter((at) => at > (page.searchedBackTo ?? 0)));
        }
        if (page.next === null) break;
        before = page.next;
      }
      expect(seen, text).toEqual(expected);
      if (walked) expect(stops.length, `${text}: stopped at its budget`).toBeGreaterThan(10);
      else expect(stops, text).toEqual([]);
    }
  }, 30_000);

  it('answers a text on no entry as the end of the trail once it has searched it all', async () => {
    const accountId = `acct-${randomUUID()}`;
    const { all } = trails(accountId, `other-${randomUUID()}`);
    const store = new SqlAuditStore(backend.database.db, backend.database.sqlite, { ...STINGY, ms: 60_000 });
    await store.append(all);
    // With time enough, the whole trail in one page: nothing found, nothing older left.
    expect(await store.search(accountId, { text: 'qx' }, null, 5)).toEqual({
      entries: [],
      next: null,
      searchedBackTo: null,
    });
    // An account with no entries at all.
    expect(await store.search(`none-${randomUUID()}`, { text: 'qx' }, null, 5)).toEqual({
      entries: [],
      next: null,
      searchedBackTo: null,
    });
  });
});
