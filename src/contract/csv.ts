/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, also after leading spaces, and their
 * full-width forms; a leading tab or carriage return) is prefixed with an apostrophe, so it shows as text.
 * One rule for every export PropLens writes (the review's, in the browser; the audit trail's, on the server).
 */
export const FORMULA_TRIGGER = /^[\t\r]|^[\s\u00a0\u3000]*[=+\-@\uff1d\uff0b\uff0d\uff20]/;

/**
 * A signed number and nothing else ("-5", "+3", "-0,5"): a spreadsheet reads it as the number, never runs it, so it
 * is left as the reviewer's file had it (a loan tape's negative amounts still sum).
 */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/;

/**
 * One CSV cell: formula-neutralised, quoted when it holds the separator, a quote or a line break. With `;` (the
 * CSV Excel reads and writes where the decimal separator is a comma: most of Europe) a fraction is written with a
 * decimal comma, so Excel there reads it as the number it is, not a date or text.
 */
export function csvCell(
  value: string | number | boolean | null | undefined,
  separator: ',' | ';' = ',',
): string {
  if (value === null || value === undefined) return '';
  if (separator === ';' && typeof value === 'number') return String(value).replace('.', ',');
  let text = String(value);
  if (typeof value === 'string' && FORMULA_TRIGGER.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return (separator === ';' ? NEEDS_QUOTES_SEMICOLON : NEEDS_QUOTES).test(text)
    ? `"${text.replace(/"/g, '""')}"`
    : text;
}

const NEEDS_QUOTES = /[",\r\n]/;
const NEEDS_QUOTES_SEMICOLON = /[";\r\n]/;

/** The separators an export may use: comma, or semicolon for Excel where a comma is the decimal separator. */
export const CSV_SEPARATORS = { comma: ',', semicolon: ';' } as const;
export type CsvSeparatorName = keyof typeof CSV_SEPARATORS;
