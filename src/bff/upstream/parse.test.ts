import { describe, expect, it } from 'vitest';
import {
  parseDate,
  parseErrorBody,
  parseReset,
  toAccount,
  toPage,
  toProperty,
  UpstreamFormatError,
} from './parse.ts';

describe('parseDate', () => {
  it.each([
    ['2026-10-20', '2026-10-20'],
    ['2026-10-20T12:00:00.000Z', '2026-10-20'],
    ['2026-10-20T23:30:00-05:00', '2026-10-21'],
    [1792497600, '2026-10-20'],
    [1792497600000, '2026-10-20'],
    ['1792497600', '2026-10-20'],
    ['1792497600000', '2026-10-20'],
  ])('reads %s', (input, expected) => expect(parseDate(input)).toBe(expected));

  it.each([
    ['2026-02-30'],
    ['20/10/2026'],
    ['yesterday'],
    [''],
    [null],
    [true],
    [Number.NaN],
    ['9999-01-01'],
    [-1e15],
  ])('refuses %s', (input) => expect(parseDate(input)).toBeNull());
});

describe('parseReset', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it.each([
    ['epoch seconds', String(now / 1000 + 30), now + 30_000],
    ['epoch milliseconds', String(now + 30_000), now + 30_000],
    ['seconds from now', '30', now + 30_000],
    ['an HTTP-date', 'Sat, 21 Nov 2026 12:00:30 GMT', now + 30_000],
  ])('reads %s', (_name, header, expected) => expect(parseReset(header, now)).toBe(expected));

  it('reads absolute times against the upstream clock, so skew does not shift the wait', () => {
    // The upstream's clock is 5 minutes behind ours: its "reset in 30 s" is 30 s from now on ours too.
    const theirNow = new Date(now - 300_000).toUTCString();
    expect(parseReset(String((now - 300_000) / 1000 + 30), now, theirNow)).toBe(now + 30_000);
    expect(parseReset(new Date(now - 300_000 + 30_000).toUTCString(), now, theirNow)).toBe(now + 30_000);
  });

  it('clamps to now and to an hour ahead, and ignores garbage', () => {
    expect(parseReset(String(now / 1000 - 100), now)).toBe(now);
    expect(parseReset('999999999', now)).toBe(now + 3_600_000);
    expect(parseReset('soon', now)).toBeNull();
    expect(parseReset(null, now)).toBeNull();
  });
});

describe('parseErrorBody', () => {
  it.each([
    [
      '{"error":{"code":"ambiguous_address","message":"Many","candidates":[{"property_id":"a","address":"1 A St"}]}}',
      'ambiguous_address',
      'Many',
      1,
    ],
    ['{"message":"Many","candidates":[{"id":"a","address":"1 A St"}]}', null, 'Many', 1],
    ['{"error":"Bad key"}', null, 'Bad key', 0],
    ['Bad key\u0000 <b>', null, 'Bad key  <b>', 0],
    ['[1,2]', null, null, 0],
  ])('reads %s', (text, code, message, candidates) => {
    const info = parseErrorBody(text, undefined);
    expect(info.code).toBe(code);
    expect(info.message).toBe(message);
    expect(info.candidates).toHaveLength(candidates);
  });

  it('reads a not-found reason only in the words it knows', () => {
    const body = (reason: unknown) => JSON.stringify({ error: { code: 'address_not_found', reason } });
    expect(parseErrorBody(body('no_such_house'), undefined).reason).toBe('no_such_house');
    expect(parseErrorBody(body('<img src=x>'), undefined).reason).toBeNull();
    expect(parseErrorBody(body({ toString: 1 }), undefined).reason).toBeNull();
    expect(parseErrorBody('{"message":"none"}', undefined).reason).toBeNull();
  });
});

describe('toProperty', () => {
  const base = {
    property_id: 'p1',
    address: '1 A St, B, TX 78701',
    source: 'Travis County Assessor',
    confidence: 'high',
    last_verified: '2026-01-02',
  };

  it.each([
    ['bare', base],
    ['{ data }', { data: base }],
    ['{ property }', { property: base }],
  ])('unwraps a %s record', (_name, body) => expect(toProperty(body, undefined).id).toBe('p1'));

  it('detects the id among the usual names, or uses the configured one only', () => {
    expect(toProperty({ ...base, property_id: undefined, propertyId: 'p2' }, undefined).id).toBe('p2');
    expect(toProperty({ ...base, property_id: undefined, id: 42 }, undefined).id).toBe('42');
    expect(() => toProperty(base, 'uuid')).toThrow(UpstreamFormatError);
  });

  it('caps strings and strips control characters from untrusted text', () => {
    const p = toProperty({ ...base, source: `Evil\u0000\u2028County ${'x'.repeat(1000)}` }, undefined);
    expect(p.source.length).toBeLessThanOrEqual(300);
    expect(p.source.includes('\u0000') || p.source.includes('\u2028')).toBe(false);
  });

  it('types the attributes it knows and keeps the rest as text', () => {
    const p = toProperty(
      {
        ...base,
        year_built: '1984',
        assessed_value: 250000,
        last_sale_date: 1262304000,
        hoa: true,
        nested: { a: 1 },
      },
      undefined,
    );
    expect(p.attributes).toMatchObject({
      yearBuilt: 1984,
      assessedValue: 250000,
      lastSaleDate: '2010-01-01',
      other: { hoa: 'yes' },
    });
  });

  it('drops a quantity it could not show as sent: past what the attribute can be, negative, or rounded', () => {
    const p = toProperty(
      {
        ...base,
        year_built: 1e300,
        assessed_value: '99999999999999999999',
        last_sale_price: -5,
        bedrooms: 4,
        living_area_sqft: 1830.5,
        lot_size_sqft: Number.MAX_SAFE_INTEGER,
      },
      undefined,
    );
    expect(p.attributes).toEqual({
      bedrooms: 4,
      livingAreaSqft: 1830.5,
      lotSizeSqft: Number.MAX_SAFE_INTEGER,
    });
  });
});

describe('toPage and toAccount', () => {
  it('reads pages as data, items, results or a bare array', () => {
    const r = { id: 'a', source: 'S', confidence: 'low', last_verified: '2020-01-01', address: 'x' };
    expect(toPage({ data: [r], next_cursor: 'c2' }, undefined)).toMatchObject({ nextCursor: 'c2' });
    expect(toPage({ items: [r] }, undefined).nextCursor).toBeNull();
    expect(toPage([r], undefined).items).toHaveLength(1);
    expect(() => toPage({ nope: 1 }, undefined)).toThrow(UpstreamFormatError);
  });

  it('reads an account bare or enveloped, and tolerates a missing name', () => {
    expect(toAccount({ account: { name: 'A', plan: 'Enterprise' } })).toEqual({
      id: null,
      name: 'A',
      plan: 'enterprise',
    });
    expect(toAccount({ data: { name: 'B' } })).toEqual({ id: null, name: 'B', plan: null });
    expect(toAccount(null)).toEqual({ id: null, name: 'Your account', plan: null });
  });

  it('reads the account’s own id under the names services use, as text, never an object', () => {
    expect(toAccount({ id: 'acct_1', name: 'A' }).id).toBe('acct_1');
    expect(toAccount({ account: { account_id: 'acct_2' } }).id).toBe('acct_2');
    expect(toAccount({ data: { accountId: 'acct_3' } }).id).toBe('acct_3');
    expect(toAccount({ id: { $gt: '' } }).id).toBeNull();
    expect(toAccount({ id: 'x'.repeat(500) }).id?.length).toBeLessThanOrEqual(200);
  });
});
