import type { PropertyType, SourceKind } from '../../contract/index.ts';
import type { Facts } from './facts.ts';

/** What a showcase record states outright instead of drawing at random. */
export type Fixed = Partial<Facts>;

export interface Showcase {
  house: string;
  street: string;
  zip: string;
  kind: SourceKind;
  ageDays: number;
  type: PropertyType;
  /** Facts of a famous building, so its record fits it. */
  fixed?: Fixed;
  /** Units with records of their own, after the building's. */
  units?: { type: PropertyType; ids: string[] };
}

/**
 * Hand-made records at fixed addresses, so demos and tests have known addresses at every confidence: high
 * (the Texas Capitol), medium (Willis Tower), low and old (742 Evergreen Ter), a building with units (615
 * Bourbon St). Landmarks get records that fit them: what they are, their size, when they were built.
 */
export const SHOWCASE: readonly Showcase[] = [
  {
    house: '1100',
    street: 'Congress Ave',
    zip: '78701',
    kind: 'assessor',
    ageDays: 12,
    type: 'government',
    // The Texas State Capitol: completed 1888, about 360,000 sq ft on 22 acres of grounds; public land is
    // exempt, so it has no taxable value and was never sold.
    fixed: {
      year_built: 1888,
      living_area_sqft: 360_000,
      lot_size_sqft: 958_320,
      bedrooms: null,
      bathrooms: null,
      assessed_value: null,
      last_sale_date: null,
      last_sale_price: null,
    },
  },
  {
    house: '233',
    street: 'S Wacker Dr',
    zip: '60606',
    kind: 'recorder',
    ageDays: 540,
    type: 'commercial',
    // Willis Tower: an office tower completed 1973, 4.48 million sq ft on a 3-acre block, sold in 2015.
    fixed: {
      year_built: 1973,
      living_area_sqft: 4_477_800,
      lot_size_sqft: 129_600,
      bedrooms: null,
      bathrooms: null,
      assessed_value: 1_020_000_000,
      last_sale_date: '2015-03-31',
      last_sale_price: 1_300_000_000,
    },
  },
  {
    house: '1600',
    street: 'Pennsylvania Ave NW',
    zip: '20500',
    kind: 'survey',
    ageDays: 30,
    type: 'government',
    // The White House: first occupied 1800, about 55,000 sq ft, 16 family and guest rooms and 35 bathrooms on
    // 18 acres; federal, never assessed or sold.
    fixed: {
      year_built: 1800,
      living_area_sqft: 55_000,
      lot_size_sqft: 784_080,
      bedrooms: 16,
      bathrooms: 35,
      assessed_value: null,
      last_sale_date: null,
      last_sale_price: null,
    },
  },
  {
    house: '742',
    street: 'Evergreen Ter',
    zip: '97477',
    kind: 'permits',
    ageDays: 1460,
    type: 'single_family',
  },
  { house: '1313', street: 'Mockingbird Ln', zip: '63101', kind: 'mls', ageDays: 200, type: 'townhouse' },
  {
    house: '615',
    street: 'Bourbon St',
    zip: '70116',
    kind: 'revenue',
    ageDays: 800,
    type: 'multi_family',
    // A French Quarter house divided into four apartments.
    fixed: { year_built: 1895 },
    units: { type: 'apartment_unit', ids: ['1', '2', '3', '4'] },
  },
];

/**
 * Well-known ZIP codes of major metros (downtowns, landmarks): a prospect's first try is often one of these, so a
 * full-size dataset always covers them (generate.ts, samplePlaces).
 */
export const METRO_ZIPS: readonly string[] = [
  '10001',
  '10011',
  '10019',
  '10036',
  '10118',
  '11201',
  '90210',
  '90012',
  '90028',
  '60601',
  '60606',
  '60611',
  '94103',
  '94105',
  '94110',
  '02108',
  '02116',
  '30303',
  '77002',
  '75201',
  '85004',
  '19103',
  '98101',
  '33131',
  '33139',
  '20001',
  '20002',
  '80202',
  '37203',
  '48226',
  '55401',
  '97204',
  '89109',
  '92101',
  '78701',
  '70116',
  '63101',
  '28202',
  '46204',
  '43215',
  '53202',
  '64106',
  '15222',
  '21202',
  '84101',
  '96815',
  '99501',
  '32801',
  '27601',
  '23219',
  '06103',
  '73102',
  '40202',
  '38103',
  '87102',
  '68102',
  '83702',
  '59601',
];
