import type { PropertyType, UpstreamProperty } from '../../contract/index.ts';
import { AS_OF_MS, DAY_MS, isoDay } from './as-of.ts';
import type { Place } from './gazetteer.ts';
import type { Rng } from './prng.ts';

/** State price tiers, dollars per square foot of living area. */
const PRICE_PER_SQFT: Record<string, number> = {
  CA: 520,
  HI: 560,
  MA: 420,
  NY: 380,
  WA: 390,
  DC: 500,
  NJ: 300,
  CO: 330,
  OR: 300,
  MD: 250,
  CT: 250,
  VA: 250,
  UT: 290,
  FL: 260,
  AZ: 250,
  NV: 240,
  TX: 180,
  IL: 170,
  GA: 170,
  NC: 180,
  PA: 160,
  MN: 190,
  MI: 140,
  OH: 130,
  IN: 120,
  MO: 130,
  AL: 120,
  MS: 105,
  AR: 110,
  WV: 100,
  KY: 120,
  LA: 130,
  OK: 115,
};

/** What a record says about the property itself, drawn so that the facts fit one another. */
export type Facts = Pick<
  UpstreamProperty,
  | 'year_built'
  | 'living_area_sqft'
  | 'lot_size_sqft'
  | 'bedrooms'
  | 'bathrooms'
  | 'assessed_value'
  | 'last_sale_date'
  | 'last_sale_price'
>;

/**
 * A property's facts, plausible together: a house stands on a lot larger than its floor area, a building of
 * units on one that holds it at three storeys; a unit has no lot of its own; vacant land is a few acres at
 * most and worth what land is (a fraction of what built space is), so no small town has a vacant lot worth
 * millions; rooms follow the living area; a sale falls after the property was built.
 */
export function drawFacts(
  rng: Rng,
  place: Place,
  type: PropertyType,
  unit: string | null,
  options: { units?: number | undefined; yearBuilt?: number | null | undefined },
): Facts {
  const { units } = options;
  const isLand = type === 'vacant_land';
  const isUnit = type === 'apartment_unit' || (type === 'condominium' && unit !== null);
  const drawnYear = isLand
    ? null
    : rng.weighted([
        [rng.int(1890, 1945), 15],
        [rng.int(1946, 1979), 35],
        [rng.int(1980, 2009), 35],
        [rng.int(2010, 2025), 15],
      ] as const);
  const yearBuilt = options.yearBuilt === undefined ? drawnYear : options.yearBuilt;
  const living = isLand
    ? null
    : units
      ? units * rng.int(60, 110) * 10
      : isUnit
        ? rng.int(45, 160) * 10
        : rng.int(70, 420) * 10;
  // About one bedroom per 750 sq ft (a 2,400 sq ft house has 3), studios only under 600 sq ft.
  const beds =
    living === null || units
      ? null
      : Math.max(living < 600 ? 0 : 1, Math.min(6, Math.round(living / 750 + rng.next() * 1.2 - 0.6)));
  const baths = beds === null ? null : Math.max(1, Math.round((beds * 0.75 + rng.next() * 0.8) * 2) / 2);
  const perSqft = PRICE_PER_SQFT[place.state] ?? 150;
  const lot = lotFor(rng, living, { isLand, isUnit, building: Boolean(units) });
  // Land alone is worth a few percent of built space per square foot.
  const market = living !== null ? living * perSqft * (0.7 + rng.next() * 0.6) : (lot ?? 0) * perSqft * 0.025;
  const assessed = Math.round((market * (0.75 + rng.next() * 0.2)) / 100) * 100;
  const sold = rng.chance(0.8);
  const saleAgeDays = rng.int(30, 365 * Math.min(40, yearBuilt ? 2026 - yearBuilt : 30));
  return {
    year_built: yearBuilt,
    living_area_sqft: living,
    lot_size_sqft: lot,
    bedrooms: beds,
    bathrooms: baths,
    assessed_value: assessed,
    last_sale_date: sold ? isoDay(AS_OF_MS - saleAgeDays * DAY_MS) : null,
    last_sale_price: sold ? Math.round((market * (0.6 + rng.next() * 0.4)) / 1000) * 1000 : null,
  };
}

/** Square feet of lot, in hundreds: none for a unit, up to about 2.3 acres of vacant land, never under the building. */
function lotFor(
  rng: Rng,
  living: number | null,
  kind: { isLand: boolean; isUnit: boolean; building: boolean },
): number | null {
  if (kind.isUnit) return null;
  if (kind.isLand || living === null) return rng.int(40, 1000) * 100;
  // The footprint: a house of one or two storeys, a building of units of three.
  const footprint = kind.building ? living / 3 : living / rng.pick([1, 1, 2]);
  const drawn = rng.int(25, 400) * 100;
  return Math.max(drawn, Math.ceil((footprint * (1.3 + rng.next())) / 100) * 100);
}
