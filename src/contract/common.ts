import * as z from 'zod/mini';

/*
 * The contract is written with zod/mini: the same schemas run in the browser, where classic zod would cost
 * about 40 KB gzipped of the 120 KB budget (docs/decisions/002-zod-mini-contract.md).
 */

/** How reliable a record is, as the upstream states it: source quality and recency. */
export const Confidence = z.enum(['high', 'medium', 'low']);
export type Confidence = z.infer<typeof Confidence>;

/** Account plans of the Property Intelligence Service. Only some carry API access. */
export const Plan = z.enum(['starter', 'professional', 'enterprise']);
export type Plan = z.infer<typeof Plan>;
export const ELIGIBLE_PLANS: readonly Plan[] = ['professional', 'enterprise'];

/** Calendar date as the BFF speaks it, whatever the upstream sent. */
export const IsoDate = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'));

/*
 * Every text and whole number of a request to the BFF is one of the two below, so what one database stores the
 * other does too and both answer the same: PostgreSQL's text cannot hold U+0000 (SQLite's can) and its
 * `integer` is 32-bit (SQLite's is 64-bit); past either, PostgreSQL would throw and the request answer 500.
 */

/** The largest whole number a request may carry: PostgreSQL's `integer`. */
export const MAX_INT = 2_147_483_647;

// A surrogate half without its other half: JSON can carry one (`"\ud800"`), no text encoding can store it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text as a client may send it: anything but U+0000 and broken UTF-16 (which a database would store altered,
 * as U+FFFD, so what is kept differs from what was sent). `field` names it in the message.
 */
export const text = (field: string) =>
  z.string().check(
    z.refine(
      (s) => !s.includes('\u0000'),
      `${field}: remove the NUL character (U+0000), which text cannot hold.`,
    ),
    z.refine(
      (s) => !LONE_SURROGATE.test(s),
      `${field}: this text holds half a character (a lone UTF-16 surrogate); send it as valid Unicode.`,
    ),
  );

// Bidirectional embeddings, overrides and isolates: they make a name read differently from what it says.
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
// What shows nothing: spaces, format characters (zero-width and the like), controls.
const INVISIBLE = /^[\s\p{Cf}\p{Cc}]*$/u;

// Inside a name, what shows nothing yet makes two names differ: zero-width spaces, soft hyphens, word joiners,
// byte-order marks, line and paragraph separators, controls. (Joiners that shape a script or an emoji, U+200C and
// U+200D, are kept: Persian names and family emoji need them.)
const HIDDEN_INSIDE = /[\u00AD\u180E\u200B\u2060-\u2064\uFEFF\u2028\u2029\p{Cc}]/u;

/**
 * A name people read in lists (a review's, a key holder's): some visible character, none that reorders what it
 * shows, and none hidden inside it (so "Dana\u200bOrtiz" cannot pass for "DanaOrtiz").
 */
export const displayName = (field: string) =>
  text(field).check(
    z.refine((s) => !INVISIBLE.test(s), `${field}: use at least one visible character.`),
    z.refine((s) => !BIDI_CONTROLS.test(s), `${field}: remove the text-direction control characters.`),
    z.refine(
      (s) => INVISIBLE.test(s) || !HIDDEN_INSIDE.test(s),
      `${field}: remove the invisible characters (zero-width spaces, soft hyphens, line breaks).`,
    ),
  );

/** A whole number, 0 or more, that every database can hold. */
export const wholeNumber = (field: string) =>
  z.int().check(z.nonnegative(`${field}: 0 or more`), z.maximum(MAX_INT, `${field}: at most ${MAX_INT}`));

/** The same, written in a query string (`?run=2`). */
export const wholeNumberParam = (field: string) =>
  z.coerce
    .number()
    .check(
      z.int(`${field}: a whole number`),
      z.nonnegative(`${field}: 0 or more`),
      z.maximum(MAX_INT, `${field}: at most ${MAX_INT}`),
    );

/** Longest address a client may send; longer input is refused, never truncated. */
export const MAX_ADDRESS_LENGTH = 512;

/**
 * An address or partial address typed by a person. Control characters are refused rather than stripped so
 * that what we resolve is exactly what was asked.
 */
export const AddressInput = z.string().check(
  z.maxLength(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  z.refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'An address cannot contain control characters.'),
  z.refine((s) => s.trim().length > 0, 'Enter an address.'),
);
