import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../test-support/audit-entry.ts';
import { type ChainedEntry, canonicalEntry, canonicalized, entryHash, GENESIS } from './chain.ts';

/*
 * The canonical form an auditor recomputes: RFC 8785 as the `canonicalize` package writes it, whatever the
 * entry holds (the fast form is held to it here), and every column in it.
 */

const entry = (over: Partial<ChainedEntry> = {}): ChainedEntry => ({
  ...auditEntry({ at: 1_700_000_000_123 }),
  review_owner: null,
  id: 42,
  prev_hash: GENESIS,
  ...over,
});

describe('an entry’s canonical form', () => {
  it('is RFC 8785 as canonicalize writes it, for any text or number an entry may hold', () => {
    const texts = [
      '12 Main St',
      'Évry "Québec"\\',
      'tab\there\nnew',
      '\u0000\u001f\u2028',
      'lone \ud800 half',
      '🏠 ÅB',
    ];
    const cases = [
      entry(),
      ...texts.map((query, i) =>
        entry({
          query,
          property_id: texts[(i + 1) % texts.length] ?? null,
          session_ref: query,
          source: query,
        }),
      ),
      entry({ id: '9007199254740991', at: 1e15, cached: 1, cached_at: 1_700_000_000_000, row_index: 0 }),
      entry({
        review_owner: undefined,
        kind: 'review_row',
        review_id: 'rv_1',
        row_index: 12,
        confidence: null,
      }),
    ];
    for (const e of cases) expect(canonicalEntry(e)).toBe(canonicalized(e));
    expect(canonicalEntry(entry())).toMatch(/^\{"account_id":"acct","at":1700000000123,.*,"v":1\}$/);
  });

  it('changes its hash with every column but the search text', () => {
    const base = entry();
    const changes: Partial<ChainedEntry>[] = [
      { id: 43 },
      { at: base.at + 1 },
      { account_id: 'other' },
      { key_fingerprint: 'fp000001' },
      { session_ref: 's' },
      { kind: 'resolve' },
      { query: 'q' },
      { outcome: 'matched' },
      { property_id: 'p' },
      { source: 's' },
      { confidence: 'high' },
      { last_verified: '2026-01-01' },
      { cached: 1 },
      { cached_at: 1 },
      { upstream_request_id: 'u' },
      { review_id: 'r' },
      { row_index: 1 },
      { review_owner: 'fp000002' },
      { prev_hash: 'a'.repeat(64) },
    ];
    const hashes = new Set([entryHash(base), ...changes.map((c) => entryHash({ ...base, ...c }))]);
    expect(hashes.size).toBe(changes.length + 1);
    expect(entryHash({ ...base, search_text: 'anything' } as ChainedEntry)).toBe(entryHash(base));
  });
});
