import { UNIT_DESIGNATORS, US_STATES } from '../address-tables.ts';
import { type MatchChange, type MatchExplanation, MatchPart } from '../match.ts';
import { addressInUsualOrder } from './address-order.ts';
import { isTypo, lookReason, matchQuality } from './explain-quality.ts';
import { standardWord as standard, stateSpellings } from './usps.ts';

/*
 * Working out a match's explanation (see ../match.ts for what it means): both sides reduced to USPS
 * Publication 28 standard forms, then aligned word by word. Run by the BFF; the browser reads only the schemas
 * in match.ts, so this module and the USPS tables stay out of its bundle (src/contract/server/: servers only).
 */

/** The record's side: its one-line address, its city when the service sent it, and its identifiers. */
export interface MatchedAddress {
  address: string;
  city?: string | null;
  /** The property ID, the parcel number: typed instead of an address, they were not corrected into one. */
  identifiers?: readonly (string | null | undefined)[];
}

/** A word as written, and its comparison key in USPS standard form. */
interface Word {
  text: string;
  key: string;
  /** Folded but not abbreviated: "LAKE" where the key says "LK". */
  raw: string;
  /** Which comma-separated segment it came from. */
  segment: number;
}

interface Tagged extends Word {
  part: MatchPart;
}

/** Upper case, accents folded, punctuation inside a word dropped ("O'Fallon", "Winston-Salem"). */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9#/]/g, '');
}

/** As fold, but a gap between digits is kept: "123 4th St" and "12 34th St" are different properties. */
function foldKeepingNumbers(text: string): string {
  return fold(text.replace(/(\d)[^\p{L}\p{N}]+(?=\d)/gu, '$1#'));
}

function words(input: string): Word[] {
  const out: Word[] = [];
  let segment = 0;
  for (const piece of input.normalize('NFC').match(/#|,|[^\s,#]+/g) ?? []) {
    if (piece === ',') {
      segment++;
      continue;
    }
    const text = piece === '#' ? '#' : piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    const raw = text === '#' ? '#' : fold(text);
    if (raw !== '') out.push({ text, key: standard(raw), raw, segment });
  }
  return out;
}

interface Parsed {
  house: Word | null;
  /** Street, city and state words in order; the state (if recognised) as one word keyed by its code. */
  rest: Word[];
  /** The segment index where the state stands, when it was recognised. */
  state: Word | null;
  zip: Word | null;
  unit: { text: string; key: string } | null;
}

/** Takes an address apart the way a person writes one: house, street, unit, city, state, ZIP. */
function parse(input: string): Parsed {
  const ws = words(addressInUsualOrder(input));
  let unit: Parsed['unit'] = null;
  for (let i = 2; i < ws.length; i++) {
    const w = ws[i] as Word;
    const next = ws[i + 1];
    if (!Object.hasOwn(UNIT_DESIGNATORS, w.key) || !next) continue;
    // "..., FL 32712" at the end is Florida and its ZIP, not floor 32712.
    const stateAtEnd =
      w.key in US_STATES &&
      (i === ws.length - 1 || (i === ws.length - 2 && /^\d{5}(\d{4})?$/.test(next.key)));
    if (stateAtEnd) continue;
    let id = next;
    let take = 2;
    if (next.key === '#' && ws[i + 2]) {
      id = ws[i + 2] as Word;
      take = 3;
    }
    if (w.key !== '#' && !/\d/.test(id.key) && id.key.length > 2) continue;
    unit = {
      text: ws
        .slice(i, i + take)
        .map((x) => x.text)
        .join(' ')
        .replace('# ', '#'),
      key: id.key,
    };
    ws.splice(i, take);
    break;
  }
  let zip: Word | null = null;
  const last = ws[ws.length - 1];
  if (last && ws.length > 2 && /^\d{5}(\d{4})?$/.test(last.key.replace('/', ''))) {
    zip = { ...last, key: last.key.slice(0, 5), raw: last.key.slice(0, 5) };
    ws.pop();
  }
  let state: Word | null = null;
  for (const { words: keys, code } of stateSpellings()) {
    if (keys.length >= ws.length) continue; // something must stay for the street
    const tail = ws.slice(ws.length - keys.length);
    if (tail.every((w, i) => w.key === keys[i] || w.key === standard(keys[i] as string))) {
      ws.splice(ws.length - keys.length);
      const text = tail.map((w) => w.text).join(' ');
      state = { text, key: code, raw: code, segment: (tail[0] as Word).segment };
      break;
    }
  }
  let house: Word | null = null;
  if (ws[0] && /^\d+[A-Z]?$/.test(ws[0].key)) {
    house = ws.shift() as Word;
    if (ws[0] && /^\d\/\d$/.test(ws[0].key)) {
      const half = ws.shift() as Word;
      const key = `${house.key} ${half.key}`;
      house = { text: `${house.text} ${half.text}`, key, raw: key, segment: house.segment };
    }
  }
  return { house, rest: state ? [...ws, state] : ws, state, zip, unit };
}

/** The record's address as tagged words: the first segment is the street, the rest up to the state the city. */
function tagMatched(matched: MatchedAddress): { words: Tagged[]; unit: Parsed['unit'] } {
  const p = parse(matched.address);
  const streetSegment = p.house?.segment ?? p.rest[0]?.segment ?? 0;
  const cityKeys = matched.city ? words(matched.city).map((w) => w.key) : [];
  const body = p.rest.filter((w) => w !== p.state);
  // An address written without commas: the city is the trailing words that spell the record's city.
  const tailCity =
    cityKeys.length > 0 &&
    body.every((w) => w.segment === streetSegment) &&
    body.slice(-cityKeys.length).every((w, i) => w.key === cityKeys[i])
      ? body.length - cityKeys.length
      : -1;
  const tagged: Tagged[] = [];
  if (p.house) tagged.push({ ...p.house, part: 'house' });
  body.forEach((w, i) => {
    const isCity = tailCity >= 0 ? i >= tailCity : w.segment !== streetSegment;
    tagged.push({ ...w, part: isCity ? 'city' : 'street' });
  });
  if (p.state) tagged.push({ ...p.state, part: 'state' });
  if (p.zip) tagged.push({ ...p.zip, part: 'zip' });
  return { words: tagged, unit: p.unit };
}

/** Replacing a word costs less when it reads as a typo of it, so typos pair up with what they meant. */
function substitution(a: string, b: string): number {
  if (a === b) return 0;
  return isTypo(a, b) ? 1 : 2;
}

/** One step of an alignment: words that stand for each other (either side may be empty). */
type Step = { typed: Word[]; matched: Tagged[] };

const joined = (ws: readonly Word[]) => ws.map((w) => w.key).join('');
const joinedRaw = (ws: readonly Word[]) => ws.map((w) => w.raw).join('');
/** The same words, only spaced differently: "N W" and "NW", "Lake View" and "Lakeview". */
const same = (a: readonly Word[], b: readonly Word[]) =>
  joined(a) === joined(b) || joinedRaw(a) === joinedRaw(b);

/**
 * The cheapest word-by-word alignment of the two (Needleman-Wunsch: insert and delete cost 1, a typo 1, any
 * other replacement 2), where two words written as one or one written as two ("Lake View" for "Lakeview")
 * pair up for free.
 */
function align(typed: Word[], matched: Tagged[]): Step[] {
  const n = typed.length;
  const m = matched.length;
  const cost: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  const moves = (i: number, j: number): [di: number, dj: number, cost: number][] => {
    const out: [number, number, number][] = [];
    if (i > 0 && j > 0) {
      out.push([1, 1, substitution((typed[i - 1] as Word).key, (matched[j - 1] as Tagged).key)]);
      if (i > 1 && same(typed.slice(i - 2, i), matched.slice(j - 1, j))) out.push([2, 1, 0]);
      if (j > 1 && same(typed.slice(i - 1, i), matched.slice(j - 2, j))) out.push([1, 2, 0]);
    }
    if (i > 0) out.push([1, 0, 1]);
    if (j > 0) out.push([0, 1, 1]);
    return out;
  };
  const at = (i: number, j: number) => (cost[i] as number[])[j] as number;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      if (i === 0 && j === 0) continue;
      (cost[i] as number[])[j] = Math.min(...moves(i, j).map(([di, dj, c]) => at(i - di, j - dj) + c));
    }
  }
  const steps: Step[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const [di, dj] = moves(i, j).find(([di, dj, c]) => at(i - di, j - dj) + c === at(i, j)) as [
      number,
      number,
      number,
    ];
    steps.push({ typed: typed.slice(i - di, i), matched: matched.slice(j - dj, j) });
    i -= di;
    j -= dj;
  }
  return steps.reverse();
}

/**
 * What differs between the typed address and the record's, beyond case, punctuation and standard
 * abbreviations; null when nothing does (an exact or merely normalised match says nothing).
 */
export function explainMatch(typed: string, matched: MatchedAddress): MatchExplanation | null {
  // Typed as the record has it (a suggestion picked, a link followed), or so up to case, punctuation and
  // spacing: the commonest cases, so the cheapest checks come first. Nothing to say.
  if (typed === matched.address || foldKeepingNumbers(typed) === foldKeepingNumbers(matched.address))
    return null;
  const folded = fold(typed);
  if (matched.identifiers?.some((id) => id && fold(id) === folded)) return null;
  const t = parse(typed);
  const m = tagMatched(matched);
  const typedWords = [...(t.house ? [t.house] : []), ...t.rest, ...(t.zip ? [t.zip] : [])];
  const unitChange = compareUnits(t.unit, m.unit);
  // Word for word the same after standard abbreviations ("Avenue" for "Ave"): no alignment needed.
  if (
    !unitChange &&
    typedWords.length === m.words.length &&
    typedWords.every((w, i) => same([w], [m.words[i] as Tagged]))
  ) {
    return null;
  }
  const steps = align(typedWords, m.words);

  const changes: MatchChange[] = [];
  let run: { part: MatchPart; typed: Word[]; matched: Tagged[] } | null = null;
  const flush = () => {
    if (run) {
      const change = toChange(run.part, run.typed, run.matched);
      if (change) changes.push(change);
    }
    run = null;
  };
  let lastPart: MatchPart | null = null;
  steps.forEach((step, index) => {
    const last = step.matched[step.matched.length - 1];
    if (step.typed.length > 0 && last && same(step.typed, step.matched)) {
      flush();
      lastPart = last.part;
      return;
    }
    // A word only the person typed belongs with the part it stands next to.
    const part =
      step.matched[0]?.part ??
      lastPart ??
      steps.slice(index).find((s) => s.matched.length > 0)?.matched[0]?.part ??
      'street';
    if (run && run.part !== part) flush();
    run ??= { part, typed: [], matched: [] };
    run.typed.push(...step.typed);
    run.matched.push(...step.matched);
    if (last) lastPart = last.part;
  });
  flush();

  if (unitChange) changes.push(unitChange);
  changes.sort((a, b) => MatchPart.options.indexOf(a.part) - MatchPart.options.indexOf(b.part));
  if (changes.length === 0) return null;
  const quality = matchQuality({ changes });
  const reason = lookReason({ changes });
  return { typed: typed.trim(), matched: matched.address, changes, quality, ...(reason ? { reason } : {}) };
}

function toChange(part: MatchPart, typed: Word[], matched: Tagged[]): MatchChange | null {
  const typedText = typed.map((w) => w.text).join(' ');
  const matchedText = matched.map((w) => w.text).join(' ');
  if (typed.length === 0) return { kind: 'added', part, typed: '', matched: matchedText };
  if (matched.length === 0) return { kind: 'ignored', part, typed: typedText, matched: '' };
  if (same(typed, matched)) return null;
  return { kind: 'corrected', part, typed: typedText, matched: matchedText };
}

function compareUnits(typed: Parsed['unit'], matched: Parsed['unit']): MatchChange | null {
  if (typed?.key === matched?.key) return null;
  if (!typed) return { kind: 'added', part: 'unit', typed: '', matched: (matched as { text: string }).text };
  if (!matched) return { kind: 'ignored', part: 'unit', typed: typed.text, matched: '' };
  return { kind: 'corrected', part: 'unit', typed: typed.text, matched: matched.text };
}

/** The record side of a match from a property record: its address, its city and its identifiers. */
export interface RecordForMatch {
  id: string;
  address: string;
  attributes: { city?: string | null; parcelNumber?: string | null };
}

/**
 * explainMatch against a property record, the same way everywhere (the BFF's answer to a search, a review
 * row in the browser): the property ID or parcel number typed instead of an address is not a correction.
 */
export function explainRecordMatch(typed: string, record: RecordForMatch): MatchExplanation | null {
  return explainMatch(typed, {
    address: record.address,
    city: record.attributes.city,
    identifiers: [record.id, record.attributes.parcelNumber],
  });
}
