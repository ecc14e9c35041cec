import { formatCount, formatUsd } from '../../../lib/format.ts';

export { formatCount, formatUsd };

export function formatArea(sqft: number): string {
  const base = `${formatCount(sqft)} sq ft`;
  return sqft >= 43_560 ? `${base} (${(sqft / 43_560).toFixed(2)} acres)` : base;
}

const PROPERTY_TYPES: Record<string, string> = {
  single_family: 'Single-family home',
  condominium: 'Condominium',
  townhouse: 'Townhouse',
  multi_family: 'Multi-family building',
  apartment_unit: 'Apartment unit',
  mobile_home: 'Mobile home',
  vacant_land: 'Vacant land',
};

/** "single_family" -> "Single-family home"; unknown values are shown as sent, made readable. */
export function formatPropertyType(value: string): string {
  return PROPERTY_TYPES[value] ?? value.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}
