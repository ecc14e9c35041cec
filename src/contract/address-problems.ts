/*
 * Inputs that cannot be a US property address whatever the service holds, told apart before a lookup is spent:
 * the person learns why at once ("a PO box is a mailing address") instead of a bare "not found". Used by the
 * BFF for every lookup and by the review's start stage for each row.
 */

const PLACEHOLDERS = new Set([
  'n/a',
  'na',
  'n.a',
  'tbd',
  'tba',
  'unknown',
  'none',
  'null',
  'undefined',
  'same',
  'see above',
  'xxx',
  'x',
  '-',
  '--',
  '?',
]);

const COUNTRIES = new Set([
  'canada',
  'mexico',
  'united kingdom',
  'uk',
  'england',
  'scotland',
  'wales',
  'ireland',
  'germany',
  'france',
  'spain',
  'italy',
  'netherlands',
  'australia',
  'new zealand',
  'india',
  'china',
  'japan',
  'brazil',
]);

/** Why `input` cannot be a US property address, in words with what to do; null when it may be one. */
export function addressProblem(input: string): string | null {
  const text = input.trim();
  const folded = text.toLowerCase().replace(/\s+/g, ' ');
  if (/^(https?:\/\/|www\.)/i.test(text) || text.includes('://'))
    return 'A web link, not a street address: paste the address itself.';
  if (!/[\p{L}\p{N}]/u.test(text)) return 'No letters or numbers: not an address.';
  if (PLACEHOLDERS.has(folded.replace(/[.\s]+$/, '')))
    return `“${text}” is a placeholder, not an address: fill in the street address.`;
  if (/\b(p\.?\s*o\.?\s*box|post\s+office\s+box)\b/i.test(text))
    return 'A PO box is a mailing address, not a property: give the street address of the property.';
  const last = folded.split(',').at(-1)?.trim() ?? '';
  if (COUNTRIES.has(last) || /\b[a-z]\d[a-z] ?\d[a-z]\d$/i.test(text))
    return 'This looks like an address outside the United States: the property service covers US properties only.';
  return null;
}

const STATE_CODES = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP'.split(
    ' ',
  ),
);

/**
 * A ZIP that lost its leading zero (a spreadsheet read "07976" as a number): "Chatham, NJ 7976" → "Chatham, NJ
 * 07976". Only right after a state code, and only 3 or 4 digits, so a house number is never touched.
 */
export function restoreZip(address: string): string {
  return address.replace(
    /\b([A-Za-z]{2})(\s+)(\d{3,4})(-\d{4})?\s*$/,
    (whole, state: string, space: string, zip: string, plus4 = '') =>
      STATE_CODES.has(state.toUpperCase()) ? `${state}${space}${zip.padStart(5, '0')}${plus4}` : whole,
  );
}

/** A ZIP cell of a file as a ZIP: "7976" → "07976" (leading zeros a spreadsheet dropped); anything else as is. */
export function zipCell(cell: string): string {
  return /^\d{3,4}$/.test(cell) ? cell.padStart(5, '0') : cell;
}
