/**
 * The API key cut out of whatever the upstream answered, before anything else reads it: an upstream may echo
 * the request (its Authorization header, or the URL with a `query:` key) into a record, a message or a
 * candidate. What the BFF keeps, logs and answers is built from the result, so the key never reaches the
 * browser, the database or the log.
 *
 * A JSON body is redacted as parsed: every string in it, object keys included, after JSON.parse has undone
 * every escape (`\/`, `\u00fc`, `\uXXXX` for any character), so no way of writing the key inside JSON hides
 * it. A body that is not JSON is redacted as text, where those escapes are matched too: it may be logged.
 */

export const REDACTED = '[redacted]';

/** Nesting past this is dropped: nothing we read lies that deep, and a hostile body must not exhaust the stack. */
const MAX_DEPTH = 32;

export interface KeyRedaction {
  /** A text with every form of the key replaced, escaped forms included. */
  text(text: string): string;
  /** A parsed JSON value with every string (object keys too) redacted; nesting past 32 levels dropped. */
  parsed(value: unknown): unknown;
  /**
   * Is a JSON text one whose parse `parsed` would give back unchanged? Only when no string in it can hold the key:
   * none holds its longest run of letters and digits (every form of the key holds it), and none can be decoded
   * into something else (no `\`, `%` or `&` anywhere); and it nests no deeper than `parsed` keeps. Then the
   * parse is the answer, not a copy of it built string by string (most upstream answers: 9 of 14 µs each).
   */
  untouched(json: string): boolean;
}

const NONE: KeyRedaction = { text: (t) => t, parsed: (v) => v, untouched: () => true };

/**
 * Redaction of one key. Its forms: as sent, in either Unicode normal form (an upstream may normalise), and
 * percent-encoded as a URL carries it (encodeURIComponent and form encoding, hex digits in either case).
 * Keys under 4 characters are left alone: they would cut ordinary words out of every answer.
 */
export function keyRedaction(apiKey: string): KeyRedaction {
  if (apiKey.length < 4) return NONE;
  const forms = new Set<string>();
  for (const key of [apiKey, apiKey.normalize('NFC'), apiKey.normalize('NFD')]) {
    forms.add(key);
    forms.add(encodeURIComponent(key));
    forms.add(new URLSearchParams({ k: key }).toString().slice(2));
    // A URL carried inside another URL's parameter (an upstream echoing its own request as a link).
    forms.add(encodeURIComponent(encodeURIComponent(key)));
  }
  // Longest first, so a form that contains another is cut whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  const plain = new RegExp(ordered.map((f) => formPattern(f, false)).join('|'), 'g');
  // Built only for a body that is not JSON (rare): it costs far more than the plain one.
  let escaped: RegExp | undefined;
  // Letters and digits stay as they are in every form: a string without the key's longest run of them cannot
  // hold the key, and `includes` is far cheaper than the expression (a page of records has hundreds of strings).
  const anchor = (apiKey.match(/[A-Za-z0-9]+/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  const once = new RegExp(plain.source);
  // A text's strings are its own bytes when it has no escape, but a number is read as String(n) (1e3 is "1000",
  // 1e999 "Infinity"): an anchor that such a reading could hold sends every body through the full redaction.
  const verbatim = anchor.length >= 3 && /[^0-9e]/.test(anchor) && !'Infinity'.includes(anchor);
  // Encoded past what the forms cover (URL-encoded twice, HTML character references): what decodes to the key
  // goes whole. Only text with an escape character is decoded, so most strings cost an `includes`.
  const hidden = (s: string) => /[%&]/.test(s) && decodings(s).some((d) => once.test(d));
  // HTML character references (an HTML page quoting the key), built on first need.
  let html: RegExp | undefined;
  const cutHtml = (s: string) => {
    if (!s.includes('&')) return s;
    html ??= new RegExp(ordered.map(htmlPattern).join('|'), 'g');
    return s.replace(html, REDACTED);
  };
  const redact = (s: string) => {
    if (!s) return s;
    const cut = cutHtml(anchor.length >= 3 && !s.includes(anchor) ? s : s.replace(plain, REDACTED));
    return hidden(cut) ? REDACTED : cut;
  };
  return {
    text: (s) => {
      if (!s) return s;
      escaped ??= new RegExp(ordered.map((f) => formPattern(f, true)).join('|'), 'g');
      const cut = cutHtml(s.replace(escaped, REDACTED));
      return hidden(cut) ? REDACTED : cut;
    },
    parsed: (value) => redactValue(value, redact, 0),
    untouched: (json) => verbatim && !json.includes(anchor) && !/[\\%&]/.test(json) && shallow(json),
  };
}

/**
 * Does a JSON text without a backslash nest no deeper than MAX_DEPTH? Without escapes a `"` always opens or
 * closes a string, so brackets outside strings are counted as they come.
 */
function shallow(json: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) inString = !inString;
    else if (inString) continue;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}

/** One form with each character as itself or as an HTML character reference (hex, decimal or named). */
function htmlPattern(form: string): string {
  return [...form]
    .map((c) => {
      const code = c.codePointAt(0) as number;
      const name = NAME_OF.get(c);
      return `(?:${escapeRegExp(c)}|&#[xX]0*${[...code.toString(16)].map(anyCase).join('')};|&#0*${code};${name ? `|&${name};` : ''})`;
    })
    .join('');
}

/** A text as it reads after up to three rounds of HTML and URL decoding, each round's result. */
function decodings(text: string): string[] {
  const out: string[] = [];
  let current = text;
  for (let round = 0; round < 3; round++) {
    const html = decodeHtml(current);
    let url = html;
    try {
      url = decodeURIComponent(html);
    } catch {
      // A lone % that is no escape: the HTML-decoded text is as far as this goes.
    }
    out.push(html, url);
    if (url === current) break;
    current = url;
  }
  return out;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  plus: '+',
  equals: '=',
};
/** The same, by character: the name an HTML page may write it as. */
const NAME_OF = new Map(Object.entries(NAMED).map(([name, c]) => [c, name]));

/** HTML character references (`&#x2F;`, `&#47;`, `&sol;` and the common names) as the characters they stand for. */
function decodeHtml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    const code =
      ref[0] !== '#'
        ? undefined
        : ref[1] === 'x' || ref[1] === 'X'
          ? Number.parseInt(ref.slice(2), 16)
          : Number(ref.slice(1));
    if (code !== undefined) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Each key's redaction, built once: building one (the key's forms, sorted, and an expression of them) cost
 * as much as redacting a record with it, for every upstream answer. The same few keys answer thousands of
 * lookups; emptied when full, so it stays small whatever keys come (it holds nothing the sessions do not).
 */
const redactions = new Map<string, KeyRedaction>();

function redactionOf(apiKey: string): KeyRedaction {
  let r = redactions.get(apiKey);
  if (r === undefined) {
    if (redactions.size >= 1_000) redactions.clear();
    r = keyRedaction(apiKey);
    redactions.set(apiKey, r);
  }
  return r;
}

/**
 * An upstream body with the key cut out: parsed when it is JSON (redacted as parsed, so no JSON escape hides
 * the key), else as text.
 */
export function redactBody(text: string, apiKey: string): { json: unknown } | { text: string } {
  const redaction = redactionOf(apiKey);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { text: redaction.text(text) };
  }
  return { json: redaction.untouched(text) ? json : redaction.parsed(json) };
}

function redactValue(value: unknown, redact: (s: string) => string, depth: number): unknown {
  if (typeof value === 'string') return redact(value);
  // A key of digits alone could come back as a JSON number, which the parser reads as text.
  if (typeof value === 'number') return redact(String(value)) === String(value) ? value : REDACTED;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact, depth + 1));
  // fromEntries defines own properties: a `__proto__` key stays data, as JSON.parse made it.
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [redact(k), redactValue(v, redact, depth + 1)]),
  );
}

/** One form as a regular expression: percent escapes in either case; with `escapes`, JSON's escapes too. */
function formPattern(form: string, escapes: boolean): string {
  // Split into literal runs and percent escapes (odd indexes).
  return form
    .split(/(%[0-9A-F]{2})/i)
    .map((part, i) => {
      if (i % 2 === 1) {
        const digits = anyCase(part[1] as string) + anyCase(part[2] as string);
        return escapes ? `(?:%|\\\\u0025)${digits}` : `%${digits}`;
      }
      return escapes ? escapedRun(part) : escapeRegExp(part);
    })
    .join('');
}

/** Each code unit as itself or as JSON writes it escaped (`\uXXXX` in either case, or `\/`). */
function escapedRun(run: string): string {
  let out = '';
  for (let i = 0; i < run.length; i++) {
    const c = run[i] as string;
    const hex = run.charCodeAt(i).toString(16).padStart(4, '0');
    const short = SHORT_ESCAPES.get(c);
    out += `(?:${escapeRegExp(c)}|\\\\u${[...hex].map(anyCase).join('')}${short ? `|${short}` : ''})`;
  }
  return out;
}

/** JSON's two-character escapes of characters a key may hold, as patterns. */
const SHORT_ESCAPES = new Map([
  ['/', '\\\\/'],
  ['"', '\\\\"'],
  ['\\', '\\\\\\\\'],
]);

const anyCase = (c: string) => (/[a-f]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
