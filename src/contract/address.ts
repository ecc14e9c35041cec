import { US_STATES } from './address-tables.ts';

/*
 * Addresses as the browser and the servers both read them: the key an address is cached under, and what cannot
 * be a US property address, told before a lookup is spent (the BFF for every lookup, the review's start stage
 * for each row). The USPS tables the SPA shows are ./address-tables.ts; reading an address into its parts with
 * the rest of USPS Publication 28 (suffixes, directionals, ordinals) is server-only: ./server/.
 */

/**
 * The key under which an address is cached, in the browser and in the BFF alike: the same address in other
 * case, spacing or Unicode form is the same question.
 */
export function addressKey(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * What a review row asks, as one key: its address's, or (a row with no address) its parcel number's, written
 * without its separators ("45019-041-7397", "45019 041 7397" and "45019.041.7397" are one parcel); null when it
 * asks nothing. Rows of a review with one key share one lookup: the form counts them by it before Start and the
 * BFF shares the answer by it.
 */
export function askedKey(address: string, parcel: string | undefined): string | null {
  if (address.trim() !== '') return sameWords(address);
  const p = parcel
    ?.normalize('NFKC')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
  return p ? `parcel:${p}` : null;
}

/**
 * The words that write one street type or unit two ways in the files reviewers bring ("Street" and "St"): the
 * usual ones only, each a word no address uses otherwise in that place. The rest of USPS Publication 28 is
 * server-only (./server/), and the browser must count rows by the same key the BFF shares lookups by.
 */
const SAME_WORD: Readonly<Record<string, string>> = {
  street: 'st',
  str: 'st',
  avenue: 'ave',
  av: 'ave',
  road: 'rd',
  drive: 'dr',
  boulevard: 'blvd',
  lane: 'ln',
  court: 'ct',
  place: 'pl',
  terrace: 'ter',
  circle: 'cir',
  highway: 'hwy',
  parkway: 'pkwy',
  apartment: 'apt',
  suite: 'ste',
};

/**
 * An address as a review's repeats are told apart: its key (case, spacing, Unicode form), and also without its
 * commas and full stops and with the usual street types and units one way ("40 W 6th Street, Yalaha, FL 34797."
 * and "40 W 6th St Yalaha FL 34797" are one lookup; review finding R27).
 */
function sameWords(address: string): string {
  return addressKey(address.replace(/[.,;]/g, ' '))
    .split(' ')
    .map((word) => SAME_WORD[word] ?? word)
    .join(' ');
}

/*
 * Inputs that cannot be a US property address whatever the service holds: the person learns why at once ("a PO
 * box is a mailing address") instead of a bare "not found".
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

/**
 * The states, DC and the territories with ZIP codes of their own (Puerto Rico, Guam, …). Built on first use: a
 * set built at load would put the state table into the chunk every page loads first, with addressKey.
 */
let stateCodes: Set<string> | null = null;
function isStateCode(code: string): boolean {
  stateCodes ??= new Set([...Object.keys(US_STATES), 'PR', 'GU', 'VI', 'AS', 'MP']);
  return stateCodes.has(code.toUpperCase());
}

/**
 * A ZIP that lost its leading zero (a spreadsheet read "07976" as a number): "Chatham, NJ 7976" → "Chatham, NJ
 * 07976". Only right after a state code, and only 3 or 4 digits, so a house number is never touched.
 */
export function restoreZip(address: string): string {
  return address.replace(
    /\b([A-Za-z]{2})(\s+)(\d{3,4})(-\d{4})?\s*$/,
    (whole, state: string, space: string, zip: string, plus4 = '') =>
      isStateCode(state) ? `${state}${space}${zip.padStart(5, '0')}${plus4}` : whole,
  );
}

/** A ZIP cell of a file as a ZIP: "7976" → "07976" (leading zeros a spreadsheet dropped); anything else as is. */
export function zipCell(cell: string): string {
  return /^\d{3,4}$/.test(cell) ? cell.padStart(5, '0') : cell;
}
