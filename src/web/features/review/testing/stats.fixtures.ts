import type {
  Confidence,
  Property,
  ReviewRowOutcome,
  ReviewRowResult,
  ReviewSignOff,
  ReviewSummary,
} from '../../../../contract/index.ts';
// Test data only: the BFF's explanation, as it attaches it to a row (never in the browser's bundle).
import { explainRecordMatch } from '../../../../contract/server/index.ts';

/** Test and screenshot data for the results views: records and rows built in a line, or many at once. */

export function makeProperty(
  over: Partial<Property> & { attributes?: Partial<Property['attributes']> } = {},
): Property {
  const { attributes, ...rest } = over;
  return {
    id: 'prop-1',
    address: '1100 Congress Ave, Austin, TX 78701',
    source: 'Travis County Assessor',
    sourceKind: 'assessor',
    confidence: 'high',
    lastVerified: '2026-10-01',
    ...rest,
    attributes: {
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      county: 'Travis County',
      propertyType: 'single_family',
      yearBuilt: 1998,
      bedrooms: 3,
      ...attributes,
    },
  };
}

/** A row as the BFF sends it: a row with a record carries how it matched the input, unless `over` says. */
export function makeRow(index: number, over: Partial<ReviewRowResult> = {}): ReviewRowResult {
  const row: ReviewRowResult = {
    index,
    input: `${index + 1} Main St`,
    outcome: 'matched',
    retrievedAt: '2026-11-01T10:00:00.000Z',
    seq: index + 1,
    ...over,
  };
  if (row.property && !('match' in over)) row.match = explainRecordMatch(row.input, row.property);
  return row;
}

export function makeSummary(over: Partial<ReviewSummary> = {}): ReviewSummary {
  return {
    id: 'rev-1',
    name: 'Portfolio Q3',
    kind: 'paste',
    origin: null,
    createdBy: 'a1b2c3d4',
    createdAt: '2026-11-01T09:00:00.000Z',
    status: 'done',
    columns: [],
    totalRows: 0,
    receivedRows: 0,
    skippedBlank: 0,
    runs: [],
    ...over,
  };
}

/** A deterministic generator (mulberry32), so screenshots and tests see the same rows every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTIES = [
  'Travis County',
  'Cook County',
  'King County',
  'Maricopa County',
  'Lane County',
  'Fulton County',
];
const STREETS = ['Main St', 'Congress Ave', 'Oak Dr', 'Elm St', 'Wacker Dr', 'Lakeshore Blvd', 'Pine Rd'];
const CITIES = ['Austin, TX', 'Chicago, IL', 'Seattle, WA', 'Phoenix, AZ', 'Eugene, OR', 'Atlanta, GA'];
const KINDS = ['assessor', 'recorder', 'revenue', 'mls', 'permits', 'survey'] as const;

/** `n` rows mixing outcomes, sources, confidence levels and verification ages, as of 2026-11-01. */
export function generateRows(n: number, seed = 1): ReviewRowResult[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const rows: ReviewRowResult[] = [];
  for (let i = 0; i < n; i++) {
    const city = pick(CITIES);
    const input = `${100 + Math.floor(rnd() * 9900)} ${pick(STREETS)}, ${city}`;
    const roll = rnd();
    const outcome: ReviewRowOutcome =
      roll < 0.78
        ? 'matched'
        : roll < 0.87
          ? 'not_found'
          : roll < 0.94
            ? 'ambiguous'
            : roll < 0.98
              ? 'failed'
              : 'pending';
    if (outcome !== 'matched') {
      rows.push(
        makeRow(i, {
          input,
          outcome,
          retrievedAt: outcome === 'pending' ? undefined : '2026-11-01T10:00:00.000Z',
          candidates:
            outcome === 'ambiguous' || outcome === 'not_found'
              ? [
                  { id: `c-${i}-a`, address: `${input} (north)` },
                  { id: `c-${i}-b`, address: `${input} (south)` },
                ]
              : undefined,
          error:
            outcome === 'failed'
              ? { code: 'upstream_unavailable', message: 'The property service did not answer.' }
              : outcome === 'pending'
                ? undefined
                : {
                    code: outcome === 'ambiguous' ? 'ambiguous' : 'not_found',
                    message: 'See the candidates.',
                  },
        }),
      );
      continue;
    }
    const county = pick(COUNTIES);
    const kind = pick(KINDS);
    const ageDays = Math.floor(rnd() ** 2 * 1600);
    const verified = new Date(Date.UTC(2026, 10, 1) - ageDays * 86_400_000).toISOString().slice(0, 10);
    const points =
      (kind === 'permits' ? 1 : kind === 'revenue' || kind === 'mls' ? 2 : 3) -
      (ageDays <= 365 ? 0 : ageDays <= 1095 ? 1 : 2);
    const confidence: Confidence = points >= 3 ? 'high' : points === 2 ? 'medium' : 'low';
    const source =
      kind === 'assessor'
        ? `${county} Assessor`
        : kind === 'recorder'
          ? `${county} Recorder of Deeds`
          : kind === 'survey'
            ? `${county} Surveyor`
            : kind === 'revenue'
              ? 'State Department of Revenue'
              : kind === 'mls'
                ? 'Regional MLS'
                : 'City Building Permits';
    rows.push(
      makeRow(i, {
        input,
        outcome,
        property: makeProperty({
          id: `P-${String(i).padStart(6, '0')}`,
          address: input.toUpperCase(),
          source,
          sourceKind: kind,
          confidence,
          lastVerified: verified,
          attributes: {
            county,
            yearBuilt: 1900 + Math.floor(rnd() * 125),
            bedrooms: 1 + Math.floor(rnd() * 5),
            livingAreaSqft: 600 + Math.floor(rnd() * 3000),
            assessedValue: 100_000 + Math.floor(rnd() * 900_000),
          },
        }),
      }),
    );
  }
  return rows;
}

/** A review's sign-off of run 1 by key ab12cd34, approved by key cd34ef56 (`approved: null` for none yet). */
export function makeSignOff(over: Partial<ReviewSignOff> = {}): ReviewSignOff {
  return {
    by: 'ab12cd34',
    at: '2026-11-01T11:30:00.000Z',
    run: 1,
    reason: null,
    approved: { by: 'cd34ef56', at: '2026-11-01T12:00:00.000Z' },
    ...over,
  };
}
