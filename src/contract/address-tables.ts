/*
 * The two USPS Publication 28 tables the browser reads (a candidate's state written out, a unit's designator in
 * the review's comparison), small enough to ship, and in a module of their own so that they load with the pages
 * that show them, not with every page. The rest of Publication 28 (street suffixes, directionals, ordinals) is
 * server-only: ./server/usps.ts.
 */

/** US states and DC by USPS code, with their names as people write them. */
export const US_STATES: Readonly<Record<string, string>> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

/**
 * USPS secondary unit designators, every accepted spelling to its standard one; '#' is accepted too and stands
 * for a unit number. One table for the reference's resolver, the match explanation and the web's comparison.
 */
export const UNIT_DESIGNATORS: Readonly<Record<string, string>> = {
  APARTMENT: 'APT',
  APT: 'APT',
  BASEMENT: 'BSMT',
  BSMT: 'BSMT',
  BUILDING: 'BLDG',
  BLDG: 'BLDG',
  DEPARTMENT: 'DEPT',
  DEPT: 'DEPT',
  FLOOR: 'FL',
  FL: 'FL',
  LOT: 'LOT',
  OFFICE: 'OFC',
  OFC: 'OFC',
  PENTHOUSE: 'PH',
  PH: 'PH',
  ROOM: 'RM',
  RM: 'RM',
  SPACE: 'SPC',
  SPC: 'SPC',
  SUITE: 'STE',
  STE: 'STE',
  TRAILER: 'TRLR',
  TRLR: 'TRLR',
  UNIT: 'UNIT',
  '#': '#',
};

/**
 * USPS designators that need no number (Publication 28, C2): "12 Main St Rear", "40 Elm St Upper". Each
 * accepted spelling to its standard one.
 */
export const NUMBERLESS_DESIGNATORS: Readonly<Record<string, string>> = {
  BASEMENT: 'BSMT',
  BSMT: 'BSMT',
  FRONT: 'FRNT',
  FRNT: 'FRNT',
  LOBBY: 'LBBY',
  LBBY: 'LBBY',
  LOWER: 'LOWR',
  LOWR: 'LOWR',
  OFFICE: 'OFC',
  OFC: 'OFC',
  PENTHOUSE: 'PH',
  PH: 'PH',
  REAR: 'REAR',
  SIDE: 'SIDE',
  UPPER: 'UPPR',
  UPPR: 'UPPR',
};
