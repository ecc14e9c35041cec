import { describe, expect, it } from 'vitest';
import { databaseBackends } from '../test-support/database-backends.ts';
import { ReviewSources, sourceFileName } from './packet-source.ts';

/*
 * A review's file as received (migration 0017), on SQLite and PostgreSQL: every byte value back as it went in;
 * written once, a retry of the same bytes accepted, other bytes refused, whichever of two racing uploads wins.
 */

const backends = databaseBackends('packet-source');
const everyByte = new Uint8Array(Array.from({ length: 512 }, (_, i) => i % 256));

describe.each(backends)('review sources on $name', (backend) => {
  it('keeps the bytes exactly, once', async () => {
    const sources = new ReviewSources(backend.database.db);
    expect(await sources.put('r1', 'portfolio.csv', everyByte, 1)).toBe('stored');
    expect(await sources.put('r1', 'portfolio.csv', everyByte, 2)).toBe('same');
    expect(await sources.put('r1', 'other.csv', everyByte.slice(1), 3)).toBe('different');
    expect(await sources.get('r1')).toEqual({ name: 'portfolio.csv', bytes: everyByte });
    expect(await sources.get('r2')).toBeUndefined();
  });

  it('keeps one of two uploads racing, and refuses the other', async () => {
    const sources = new ReviewSources(backend.database.db);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sources.put('r-race', `f${i}.csv`, new Uint8Array([i]), i)),
    );
    expect(results.filter((r) => r === 'stored')).toHaveLength(1);
    expect(results.filter((r) => r === 'different')).toHaveLength(7);
  });
});

it('names a file by its last part, printable, never a path', () => {
  expect(sourceFileName('C:\\\\Users\\\\dana\\\\Q3 portfolio.csv')).toBe('Q3 portfolio.csv');
  expect(sourceFileName('../../etc/passwd')).toBe('passwd');
  expect(sourceFileName('a\u0000b\nc.csv')).toBe('abc.csv');
  expect(sourceFileName('..')).toBe('source.csv');
  expect(sourceFileName(undefined)).toBe('source.csv');
});
