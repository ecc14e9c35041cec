import { describe, expect, it } from 'vitest';
import type { Property } from '../../../contract/index.ts';
import { explainRecordMatch } from '../../../contract/server/index.ts';
import { StoredAnswer } from '../../reviews/look-up-row.ts';
import { readResult, readStoredAnswer, storedAnswerReader } from './to-api.ts';

/*
 * The export reads stored answers with plain checks instead of the schema's parse (ADR 008): it must accept
 * exactly what the schema accepts, or a damaged row would print in the export and not in the table (or the
 * other way round). Every field of a valid answer is broken in turn, in each way a damaged row could be.
 */

const property: Property = {
  id: 'P1',
  address: '1100 Congress Ave, Austin, TX 78701',
  source: 'Travis County Assessor',
  sourceKind: 'assessor',
  confidence: 'high',
  lastVerified: '2026-10-01',
  attributes: {
    streetNumber: '1100',
    unit: null,
    city: 'Austin',
    yearBuilt: 1998,
    bathrooms: 2.5,
    lastSaleDate: '2020-01-02',
    other: { flood_zone: 'AE' },
  },
};
const answers: StoredAnswer[] = [
  {
    outcome: 'matched',
    property,
    match: explainRecordMatch('1100 Congres Ave, Austin TX', property),
    cached: true,
    retrievedAt: '2026-11-01T10:00:00.000Z',
  },
  { outcome: 'matched', property, match: null },
  {
    outcome: 'ambiguous',
    candidates: [
      { id: 'c1', address: 'a', confidence: 'low' },
      { id: 'c2', address: 'b' },
    ],
    error: { code: 'ambiguous', message: 'Two.', total: 2 },
  },
  { outcome: 'failed', error: { code: 'rate_limited', message: 'Later.', resetAt: '2026-11-01T10:01:00Z' } },
];

/** Every value a damaged field could hold. */
const BROKEN: unknown[] = [undefined, null, 5, -1, 1.5, '', 'x', '2026-1-1', true, [], {}, ['x'], { x: 1 }];

/** The answer with the value at `path` replaced (or removed, for undefined), for every path in it. */
function* mutations(
  value: unknown,
  path: (string | number)[] = [],
): Generator<[string, (v: unknown) => unknown]> {
  if (path.length > 0) yield [path.join('.'), (v) => v];
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const at = Array.isArray(value) ? Number(key) : key;
    for (const [name, replace] of mutations(child, [...path, at]))
      yield [
        name,
        (v) => {
          const copy: any = Array.isArray(value) ? [...value] : { ...value };
          const next = replace(v);
          if (next === undefined && !Array.isArray(copy)) delete copy[at];
          else copy[at] = next;
          return copy;
        },
      ];
  }
}

describe('reading a stored answer for the export', () => {
  it('accepts exactly what the schema accepts, field by field', () => {
    let cases = 0;
    for (const answer of answers) {
      expect(readStoredAnswer(JSON.stringify(answer))).toEqual(answer);
      const more = [
        ...mutations(answer),
        [
          'attributes.pool',
          (v: unknown) => ({
            ...answer,
            property: answer.property && { ...property, attributes: { ...property.attributes, pool: v } },
          }),
        ] as const,
      ];
      for (const [path, damage] of more)
        for (const broken of BROKEN) {
          const text = JSON.stringify(damage(broken)) ?? 'null';
          const schema = StoredAnswer.safeParse(JSON.parse(text)).success;
          expect(readStoredAnswer(text) !== undefined, `${path} = ${JSON.stringify(broken)}`).toBe(schema);
          cases++;
        }
    }
    expect(cases).toBeGreaterThan(500);
  });

  it('reads text that is not JSON as no answer, in the export and in the rows API', () => {
    for (const text of ['not json', '{"outcome":', '']) {
      expect(readStoredAnswer(text)).toBeUndefined();
      expect(readResult(text)).toBeUndefined();
    }
  });
});

describe('reading a whole export’s stored answers', () => {
  it('reads each row as it would alone, rows of one record sharing the work', () => {
    const read = storedAnswerReader();
    const texts: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      const answer = answers[i % answers.length] as StoredAnswer;
      // Each row retrieved at its own moment, from the cache or not; some without the two, some damaged.
      const own = {
        ...answer,
        cached: i % 3 === 0,
        retrievedAt: new Date(Date.UTC(2026, 10, 1) + i).toISOString(),
      };
      texts.push(
        i % 97 === 0
          ? JSON.stringify({ ...answer, cached: undefined, retrievedAt: undefined })
          : i % 89 === 0
            ? JSON.stringify({ ...own, retrievedAt: 'a "quoted" \\ time' })
            : i % 83 === 0
              ? `${JSON.stringify({ ...own, outcome: 'weird' })}`
              : i % 79 === 0
                ? JSON.stringify(own).replace(/}$/, ',"cached":5}')
                : JSON.stringify(own),
      );
    }
    for (const text of texts) expect(read(text)).toEqual(readStoredAnswer(text));
    expect(read(null)).toBeUndefined();
  });
});
