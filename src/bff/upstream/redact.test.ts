import { describe, expect, it } from 'vitest';
import { keyRedaction, REDACTED, redactBody } from './redact.ts';

const KEY = 'pk/live+A=ü€';

describe('keyRedaction', () => {
  it('cuts every string of a parsed body, object keys and nested lists included', () => {
    const { parsed } = keyRedaction(KEY);
    const body = JSON.parse(
      `{"a":"x \\u0070k\\/live+A=\\u00FC\\u20ac y","pk\\/live+A=\\u00fc\\u20ac":[{"b":["${KEY}"]}]}`,
    );
    expect(parsed(body)).toEqual({
      a: `x ${REDACTED} y`,
      [REDACTED]: [{ b: [REDACTED] }],
    });
  });

  it('keeps `__proto__` a field, and what it says redacted', () => {
    const out = keyRedaction(KEY).parsed(JSON.parse(`{"__proto__":{"polluted":"${KEY}"}}`)) as object;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"polluted":"${REDACTED}"}}`);
  });

  it('drops nesting past 32 levels rather than exhaust the stack on a hostile body', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}"${KEY}"${']'.repeat(100_000)}`);
    let out = keyRedaction(KEY).parsed(deep);
    let depth = 0;
    while (Array.isArray(out)) {
      out = out[0];
      depth++;
    }
    expect(depth).toBe(32);
    expect(out).toBeNull();
  });

  it('cuts a key of digits echoed as a JSON number', () => {
    expect(keyRedaction('123456789').parsed({ n: 123456789, m: 42 })).toEqual({ n: REDACTED, m: 42 });
  });

  it.each([
    ['as sent', KEY],
    ['decomposed (NFD)', KEY.normalize('NFD')],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['URL-encoded, lower-case hex', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['form-encoded', new URLSearchParams({ k: 'pk live~!' }).toString().slice(2)],
  ])('cuts the key %s', (_name, form) => {
    const key = form.startsWith('pk+live') ? 'pk live~!' : KEY;
    expect(keyRedaction(key).parsed([`<${form}>`])).toEqual([`<${REDACTED}>`]);
    expect(keyRedaction(key).text(`<${form}>`)).toBe(`<${REDACTED}>`);
  });

  it('cuts JSON-escaped forms from a text that is not JSON (it may be logged)', () => {
    const { text } = keyRedaction(KEY);
    for (const form of [
      'pk\\/live+A=\\u00fc\\u20ac',
      '\\u0070\\u006B\\u002F\\u006c\\u0069\\u0076\\u0065\\u002b\\u0041\\u003d\\u00FC\\u20AC',
      'pk%2Flive%2BA%3D%C3%BC%E2%82%AC',
      'pk\\/live\\u002bA\\u003d\\u00fc\\u20AC',
      'pk%2flive%2BA%3D\\u0025c3%bc%E2%82\\u0025AC',
    ])
      expect(text(`refused ${form}.`)).toBe(`refused ${REDACTED}.`);
  });

  it('cuts a key beyond the Basic Multilingual Plane, escaped as a surrogate pair', () => {
    const key = 'pk_😀_live';
    expect(keyRedaction(key).text('a pk_\\ud83d\\ude00_live b')).toBe(`a ${REDACTED} b`);
    expect(keyRedaction(key).parsed(JSON.parse('"pk_\\ud83d\\ude00_live"'))).toBe(REDACTED);
  });

  it('cuts the key URL-encoded twice or quoted as HTML, and drops whole a string hiding it deeper', () => {
    const key = 'pk/live+A=b9x';
    const r = keyRedaction(key);
    const twice = encodeURIComponent(encodeURIComponent(key));
    expect(r.parsed({ link: `https://x.example/?return_to=${twice}&a=1` })).toEqual({
      link: `https://x.example/?return_to=${REDACTED}&a=1`,
    });
    expect(r.parsed(['seen pk&#x2F;live&#43;A&equals;b9x here'])).toEqual([`seen ${REDACTED} here`]);
    const thrice = encodeURIComponent(twice);
    expect(r.parsed({ deep: `x=${thrice}` })).toEqual({ deep: REDACTED });
    expect(r.text(`<p>key ${'pk&#47;live+A=b9x'}</p>`)).toBe(`<p>key ${REDACTED}</p>`);
    // Escape characters without the key stay as they are.
    expect(r.parsed(['50% &amp; more'])).toEqual(['50% &amp; more']);
  });

  it('leaves other text alone, and keys too short to cut safely', () => {
    expect(keyRedaction(KEY).text('pk/live+A=u€, Main St')).toBe('pk/live+A=u€, Main St');
    expect(keyRedaction('abc').parsed({ a: 'abc' })).toEqual({ a: 'abc' });
  });
});

describe('redactBody', () => {
  // Most answers hold no form of the key and are given back as parsed, not copied string by string: every way a
  // body can hold the key still goes through the full redaction.
  it('gives an answer without the key back as parsed, and cuts the key however the body holds it', () => {
    const record = {
      property_id: 'pi_1',
      address: '1 Main St',
      lot_size_sqft: 49400,
      unit: null,
      tags: ['a'],
    };
    expect(redactBody(JSON.stringify(record), KEY)).toEqual({ json: record });
    const key = 'pk_live_A1b2C3';
    const cut = (text: string) => JSON.stringify(redactBody(text, key));
    for (const body of [
      `{"echo":"Bearer ${key}"}`,
      `{"echo":"\\u0070k_live_A1b2C3"}`,
      `{"echo":"pk_live_\\u00411b2C3"}`,
      `{"echo":"https://x.example/?k=${encodeURIComponent(encodeURIComponent(key))}"}`,
      `{"echo":"pk&#95;live&#95;A1b2C3"}`,
      `{"${key}":1}`,
    ])
      expect(cut(body), body).toContain(REDACTED);
    // A key of digits, echoed as a number written another way than the key.
    expect(redactBody('{"n":1.23456789e8}', '123456789')).toEqual({ json: { n: REDACTED } });
    // Nesting past 32 levels is dropped even in a body without the key.
    let out = (redactBody(`${'['.repeat(40)}1${']'.repeat(40)}`, key) as { json: unknown }).json;
    let depth = 0;
    while (Array.isArray(out)) {
      out = out[0];
      depth++;
    }
    expect(depth).toBe(32);
  });
});
