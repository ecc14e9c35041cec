/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, also after leading spaces, and their
 * full-width forms; a leading tab or carriage return) is prefixed with an apostrophe, so it shows as text.
 * One rule for every export PropLens writes (the review's, in the browser; the audit trail's, on the server).
 */
export const FORMULA_TRIGGER = /^[\t\r]|^[\s\u00a0\u3000]*[=+\-@\uff1d\uff0b\uff0d\uff20]/;

/** One CSV cell: formula-neutralised, quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_TRIGGER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
