import { type Property, UNIT_DESIGNATORS } from '../../../../contract/index.ts';
import {
  ATTRIBUTES,
  agencyOf,
  attributeText,
  CONFIDENCE_RANK,
  confidenceText,
  humanizeField,
  longDate,
  sourceKindRank,
  sourceKindText,
} from '../../property/index.ts';

/*
 * Which of a few records is the most reliable, by a rule a reviewer can state and defend (README, "Which
 * record is the most reliable"):
 *   1. higher confidence (high > medium > low): the service's own judgement of source and recency;
 *   2. then the more recent last verification;
 *   3. then the stronger kind of source, ranked as the service's confidence rule ranks them: assessor,
 *      recorder of deeds and county survey (3) over state revenue and MLS (2) over building permits (1);
 *      an unknown kind ranks last (0).
 * Records equal on all three are equally reliable: the rule names them all rather than pick one at random.
 */

/** A comparison shows 2 to 4 records: more columns stop being readable side by side. */
export const MIN_COMPARE = 2;
export const MAX_COMPARE = 4;

export type DecidedBy = 'only' | 'confidence' | 'recency' | 'source' | 'tie' | 'different';

/**
 * What the compared records are to one another: records of one property (the rule applies), a building and
 * its own units (the rule applies, said as such), or different properties (nothing to rank).
 */
export type Relation = 'same' | 'building' | 'different';

export interface ReliabilityVerdict {
  /** Ids of the most reliable record; more than one when the rule cannot tell them apart; none for 'different'. */
  best: string[];
  decidedBy: DecidedBy;
  relation: Relation;
  /** The reason in one or two plain sentences, naming records by source (one property) or by address. */
  reason: string;
}

/** "an assessor record", "an MLS listing", "a building permit": a kind of source as said mid-sentence. */
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]?.toLowerCase() + s.slice(1) : s);
const kindWords = (kind: string | null) => {
  const text = sourceKindText(kind);
  if (!text) return 'a source of unknown kind';
  const words = lowerFirst(text);
  return `${/^([aeiou]|MLS)/i.test(words) ? 'an' : 'a'} ${words}`;
};

/** How a reason names a record: by its source among records of one property, by address otherwise. */
type Namer = (p: Property) => string;
const capital = (s: string) => (s[0]?.toUpperCase() ?? '') + s.slice(1);

function namerFor(properties: readonly Property[], relation: Relation): Namer {
  if (relation !== 'same') return (p) => p.address;
  const sources = properties.map((p) => p.source);
  if (new Set(sources).size === sources.length) return (p) => `the ${p.source} record`;
  return (p) => `record ${properties.indexOf(p) + 1}`;
}

function listNames(ps: readonly Property[], name: Namer): string {
  const names = ps.map(name);
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Keeps the records that score highest by `score`. */
function top(ps: readonly Property[], score: (p: Property) => number | string): Property[] {
  let best: Property[] = [];
  let bestScore: number | string | undefined;
  for (const p of ps) {
    const s = score(p);
    if (bestScore === undefined || s > bestScore) {
      best = [p];
      bestScore = s;
    } else if (s === bestScore) best.push(p);
  }
  return best;
}

function rankRecords(properties: readonly Property[], name: Namer): Omit<ReliabilityVerdict, 'relation'> {
  if (properties.length === 0)
    return { best: [], decidedBy: 'tie', reason: 'There are no records to compare.' };
  if (properties.length === 1) {
    const only = properties[0] as Property;
    return { best: [only.id], decidedBy: 'only', reason: `${capital(name(only))} is the only record.` };
  }

  const byConfidence = top(properties, (p) => CONFIDENCE_RANK[p.confidence]);
  const winner = (p: Property) => `${capital(name(p))} is the most reliable`;
  if (byConfidence.length === 1) {
    const w = byConfidence[0] as Property;
    const others = [...new Set(properties.filter((p) => p !== w).map((p) => p.confidence))]
      .sort((a, b) => CONFIDENCE_RANK[b] - CONFIDENCE_RANK[a])
      .map((c) => confidenceText(c).toLowerCase());
    return {
      best: [w.id],
      decidedBy: 'confidence',
      reason: `${winner(w)}: it has ${confidenceText(w.confidence).toLowerCase()}; ${
        properties.length === 2 ? 'the other has' : 'the others have'
      } ${others.join(' or ')}.`,
    };
  }

  const sameConfidence = `${listNames(byConfidence, name)} ${byConfidence.length === 2 ? 'both' : 'all'} have ${confidenceText(
    (byConfidence[0] as Property).confidence,
  ).toLowerCase()}`;
  // ISO calendar dates compare correctly as strings.
  const byRecency = top(byConfidence, (p) => p.lastVerified);
  if (byRecency.length === 1) {
    const w = byRecency[0] as Property;
    const next = byConfidence
      .filter((p) => p !== w)
      .map((p) => p.lastVerified)
      .sort()
      .at(-1) as string;
    return {
      best: [w.id],
      decidedBy: 'recency',
      reason: `${winner(w)}: ${sameConfidence}, and it was verified more recently (${longDate(
        w.lastVerified,
      )}, against ${longDate(next)}${byConfidence.length === 2 ? ' for the other' : ' at best for the others'}).`,
    };
  }

  const sameDay = `${sameConfidence} and were verified on the same day (${longDate(
    (byRecency[0] as Property).lastVerified,
  )})`;
  const bySource = top(byRecency, (p) => sourceKindRank(p.sourceKind));
  if (bySource.length === 1) {
    const w = bySource[0] as Property;
    const others = [...new Set(byRecency.filter((p) => p !== w).map((p) => kindWords(p.sourceKind)))];
    return {
      best: [w.id],
      decidedBy: 'source',
      reason: `${winner(w)}: ${sameDay}; it comes from ${kindWords(
        w.sourceKind,
      )}, a stronger kind of source than ${others.join(' or ')}.`,
    };
  }

  return {
    best: bySource.map((p) => p.id),
    decidedBy: 'tie',
    reason: `${capital(listNames(bySource, name))} are equally reliable by this rule: the same confidence, verified on the same day, from sources of the same strength.`,
  };
}

/** A unit at the end of a street line, "APT 2", "STE. 400", "# 5": any USPS designator, or '#'. */
const UNIT_AT_END = new RegExp(
  `\\s+(?:(?:${Object.keys(UNIT_DESIGNATORS)
    .filter((d) => d !== '#')
    .join('|')})\\.?\\s*#?|#)\\s*([A-Z0-9-]+)$`,
);

/** Where a record is: its building (street line without the unit, then city, state and ZIP code) and its unit. */
function placeOf(p: Property): { building: string; unit: string } {
  const [streetLine = '', ...rest] = p.address.toUpperCase().split(',');
  const street = streetLine.replace(/\s+/g, ' ').trim();
  const unitInLine = UNIT_AT_END.exec(street);
  const place = rest
    .map((part) =>
      part
        .replace(/\s+/g, ' ')
        .replace(/(\d{5})-\d{4}/, '$1')
        .trim(),
    )
    .join(',');
  const unit = (p.attributes.unit ?? unitInLine?.[1] ?? '').toUpperCase().replace(/^0+(?=.)/, '');
  return { building: `${unitInLine ? street.slice(0, unitInLine.index) : street}|${place}`, unit };
}

/** Records of one property, a building and its own units, or different properties. */
export function relationOf(properties: readonly Property[]): Relation {
  const places = properties.map(placeOf);
  if (new Set(places.map((p) => p.building)).size > 1) return 'different';
  return new Set(places.map((p) => p.unit)).size > 1 ? 'building' : 'same';
}

/**
 * The most reliable of records of one property, by the rule above. Different properties are not ranked: each
 * record stands for its own property. A building and its own units are ranked, and the reason says so.
 */
export function mostReliable(properties: readonly Property[]): ReliabilityVerdict {
  const relation = properties.length < 2 ? 'same' : relationOf(properties);
  if (relation === 'different') {
    return {
      best: [],
      decidedBy: 'different',
      relation,
      reason: `These are ${properties.length === 2 ? 'two' : properties.length} different properties: each record describes its own, so none is more reliable than another. Compare their confidence and verification below.`,
    };
  }
  const ranked = rankRecords(properties, namerFor(properties, relation));
  if (relation === 'same') return { ...ranked, relation };
  return {
    ...ranked,
    relation,
    reason: `A building and its own units, not rival records of one property. By the rule: ${ranked.reason}`,
  };
}

/** One attribute across the compared records, formatted as the record view shows it. */
export interface ComparedAttribute {
  label: string;
  /** One per record, in column order; null where the record does not say. */
  values: (string | null)[];
  /** Not every record says the same (a missing value differs from a present one). */
  differs: boolean;
}

/** Identifiers differ between any two records by nature: shown, never flagged as a difference. */
const IDENTITY = new Set(['Property ID']);

type Getter = (p: Property) => string | null | undefined;

const ROWS: [string, Getter][] = [
  ['Property ID', (p) => p.id],
  ['Confidence', (p) => confidenceText(p.confidence)],
  ['Source', (p) => agencyOf(p)],
  ['Kind of source', (p) => sourceKindText(p.sourceKind)],
  ['Last verified', (p) => longDate(p.lastVerified)],
  ...ATTRIBUTES.flatMap(({ label, ...spec }): [string, Getter][] =>
    label ? [[label, (p) => attributeText(p, { label, ...spec })]] : [],
  ),
];

/** Attributes aligned in rows, one value per record; a row where no record says anything is left out. */
export function compareAttributes(properties: readonly Property[]): ComparedAttribute[] {
  const rows: [string, Getter][] = [...ROWS];
  const otherKeys = new Set<string>();
  for (const p of properties) for (const k of Object.keys(p.attributes.other ?? {})) otherKeys.add(k);
  for (const k of [...otherKeys].sort()) {
    rows.push([
      humanizeField(k),
      (p) => {
        const other = p.attributes.other;
        return other && Object.hasOwn(other, k) ? other[k] : null;
      },
    ]);
  }
  return rows
    .map(([label, get]) => {
      const values = properties.map((p) => {
        const v = get(p);
        return v === undefined || v === null || v === '' ? null : v;
      });
      return { label, values, differs: !IDENTITY.has(label) && new Set(values).size > 1 };
    })
    .filter((row) => row.values.some((v) => v !== null));
}
