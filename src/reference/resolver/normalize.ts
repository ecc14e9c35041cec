import { UNIT_DESIGNATORS } from '../../contract/index.ts';
import { addressInUsualOrder, NUMBERLESS_DESIGNATORS } from '../../contract/server/index.ts';
import { isSuffix, STATE_SPELLINGS, STATES, standardToken } from './usps.ts';

/** A free-text address taken apart. Every token is upper case and in USPS standard form. */
export interface ParsedAddress {
  house: string | null;
  /**
   * The street, and after it the city when the input had no comma to tell them apart: the resolver finds
   * the split against the data.
   */
  rest: string[];
  /** The city, when a comma separated it from the street. */
  city: string[] | null;
  state: string | null;
  /** The words read as the state, in standard form: "NE" may have been a street's post-directional. */
  stateTokens: string[];
  zip: string | null;
  unit: string | null;
  /**
   * The same words as typed (upper case, not standardised): a typo can turn a word into another USPS word
   * ("Rad" for Read reads as RADL, radial), and only the typed letters show how close it was.
   */
  raw: { rest: string[]; city: string[] | null; stateTokens: string[] };
}

/** Upper case, accents folded, punctuation to spaces; '#' and commas kept as their own tokens. */
export function tokenize(input: string): string[] {
  return input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/#/g, ' # ')
    .replace(/,/g, ' , ')
    .replace(/[.'’]/g, '')
    .replace(/[^A-Z0-9#,/-]+/g, ' ')
    .replace(/(^|\s)-+|-+(\s|$)/g, ' ')
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '');
}

/** A street or place name in the form the index keys it by, e.g. "North Main Street" -> "N MAIN ST". */
export function normalizeName(name: string): string {
  return nameTokens(name).std.join(' ');
}

/** A name's words in standard form and as written (upper case), aligned. */
export function nameTokens(name: string): { std: string[]; raw: string[] } {
  const raw = mergeDirectionalPairs(tokenize(name).filter((t) => t !== ','));
  return { std: raw.map(standardToken), raw };
}

/**
 * "North West" written as two words is the directional NW ("N.W. 2nd St", "Pennsylvania Ave North West"),
 * except where the second word is the street's name: "S East St" is East St, south. The index and the parser
 * read a street alike (`tokens` start with the street).
 */
function mergeDirectionalPairs(tokens: string[]): string[] {
  for (let i = 0; i < tokens.length - 1; i++) {
    const pair = `${standardToken(tokens[i] as string)}${standardToken(tokens[i + 1] as string)}`;
    if (pair !== 'NE' && pair !== 'NW' && pair !== 'SE' && pair !== 'SW') continue;
    const after = tokens[i + 2];
    if (i === 0 && (after === undefined || after === ',' || isSuffix(standardToken(after)))) continue;
    if (/^(N|S|NORTH|SOUTH)$/.test(tokens[i] as string)) tokens.splice(i, 2, pair);
  }
  return tokens;
}

export function normalizeUnit(unit: string): string {
  return unit.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function takeState(tokens: string[]): { code: string; tokens: string[] } | null {
  for (const { tokens: spelling, code } of STATE_SPELLINGS) {
    if (spelling.length >= tokens.length) continue; // something must stay for the street
    const tail = tokens.slice(tokens.length - spelling.length);
    if (tail.every((t, i) => t === spelling[i])) {
      return { code, tokens: tokens.splice(tokens.length - spelling.length) };
    }
  }
  return null;
}

/** A designator that needs no number ("Rear", "Upper") right after the street's suffix or directional. */
function takeNumberlessUnit(tokens: string[]): string | null {
  for (let i = 2; i < tokens.length; i++) {
    const designator = NUMBERLESS_DESIGNATORS[tokens[i] as string];
    const before = standardToken(tokens[i - 1] as string);
    const after = tokens[i + 1];
    if (!designator || !(isSuffix(before) || DIRECTIONALS.has(before))) continue;
    if (after !== undefined && after !== ',') continue;
    tokens.splice(i, 1);
    return designator;
  }
  return null;
}

const DIRECTIONALS = new Set(['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW']);

export function parseAddress(input: string): ParsedAddress {
  const tokens = tokenize(addressInUsualOrder(input));
  const dropTrailingCommas = () => {
    while (tokens[tokens.length - 1] === ',') tokens.pop();
  };
  dropTrailingCommas();

  let unit: string | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const designator = UNIT_DESIGNATORS[tokens[i] as string];
    const next = tokens[i + 1];
    // A designator must be followed by an identifier, and cannot be the house number or the street's first
    // word; it may stand anywhere after that, even after the ZIP code.
    // "FL 33931" is Florida and its ZIP, not floor 33931, also with a unit after it ("FL 32609 Unit 2").
    const isState =
      (tokens[i] as string) in STATES && (i === tokens.length - 1 || /^\d{5}(-?\d{4})?$/.test(next ?? ''));
    if (
      designator &&
      !isState &&
      i > 1 &&
      next &&
      next !== ',' &&
      (designator === '#' || /\d/.test(next) || next.length <= 2)
    ) {
      let id = next;
      let take = 2;
      if (next === '#' && tokens[i + 2]) {
        id = tokens[i + 2] as string;
        take = 3;
      }
      unit = normalizeUnit(id);
      tokens.splice(i, take);
      dropTrailingCommas();
      break;
    }
  }
  unit ??= takeNumberlessUnit(tokens);

  let zip: string | null = null;
  const last = tokens[tokens.length - 1];
  const zipMatch = last ? /^(\d{5})(?:-?\d{4})?$/.exec(last) : null;
  if (zipMatch && tokens.length > 2) {
    zip = zipMatch[1] ?? null;
    tokens.pop();
    dropTrailingCommas();
  }
  const state = takeState(tokens);
  dropTrailingCommas();

  let house: string | null = null;
  const first = tokens[0];
  if (first && /^\d+[A-Z]?$/.test(first)) {
    house = first;
    tokens.shift();
    // "12 1/2 Main St": a fractional house number stays part of it.
    if (tokens[0] && /^\d\/\d$/.test(tokens[0])) house += ` ${tokens.shift()}`;
  }

  mergeDirectionalPairs(tokens);

  const commaAt = tokens.indexOf(',');
  const streetPart = commaAt === -1 ? tokens : tokens.slice(0, commaAt);
  const cityPart = commaAt === -1 ? null : tokens.slice(commaAt + 1).filter((t) => t !== ',');
  const city = cityPart && cityPart.length > 0 ? cityPart : null;
  return {
    house,
    rest: streetPart.map(standardToken),
    city: city?.map(standardToken) ?? null,
    state: state?.code ?? null,
    stateTokens: state?.tokens.map(standardToken) ?? [],
    zip,
    unit,
    raw: { rest: streetPart, city, stateTokens: state?.tokens ?? [] },
  };
}

// Three reusable rows: distance is computed for thousands of street names per typo, so no allocation.
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)] as const;

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment), the
 * commonest typo; stops early once it must exceed `max`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length + 1 > rows[0].length) {
    const n = b.length + 1;
    rows = [new Int32Array(n), new Int32Array(n), new Int32Array(n)];
  }
  let [before, prev, cur] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        v = Math.min(v, (before[j - 2] as number) + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length] as number;
}

/** How many edits a typo in a name of this length may take. */
export function typoAllowance(name: string): number {
  const letters = name.replace(/\s/g, '').length;
  return letters < 4 ? 0 : letters < 8 ? 1 : 2;
}
