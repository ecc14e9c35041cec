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
