import { describe, expect, it } from 'vitest';
import type { SourceKind } from '../../contract/index.ts';
import { sourceFor, stateTaxAgency } from './agencies.ts';
import { loadPlaces, type Place } from './gazetteer.ts';
import { createRng } from './prng.ts';

const places = new Map(loadPlaces().map((p) => [p.zip, p]));
const at = (zip: string) => places.get(zip) as Place;
const source = (kind: SourceKind, zip: string) => sourceFor(kind, at(zip), createRng(1));

describe('sources named as the agencies that keep the records there', () => {
  it.each([
    // Texas: the county's appraisal district values property, the county clerk records deeds.
    ['assessor', '78701', 'Travis Central Appraisal District'],
    ['recorder', '78701', 'Travis County Clerk'],
    ['revenue', '78701', 'Texas Comptroller of Public Accounts'],
    ['assessor', '76102', 'Tarrant Appraisal District'],
    // Cook County: the Assessor's Office, and the Clerk's Office, which took over the Recorder's in 2020.
    ['assessor', '60606', "Cook County Assessor's Office"],
    ['recorder', '60606', "Cook County Clerk's Office – Recordings"],
    ['revenue', '60606', 'Illinois Department of Revenue'],
    // Connecticut's counties keep nothing: the town does, a village's records are its town's.
    ['assessor', '06830', 'Town of Greenwich Assessor'],
    ['assessor', '06807', 'Town of Greenwich Assessor'],
    ['recorder', '06830', 'Town of Greenwich Town Clerk – Land Records'],
    ['assessor', '06103', 'City of Hartford Assessor'],
    ['revenue', '06830', 'Connecticut Department of Revenue Services'],
    ['mls', '06830', 'SmartMLS'],
    ['assessor', '02108', 'City of Boston Board of Assessors'],
    ['recorder', '02108', 'Suffolk County Registry of Deeds'],
    ['assessor', '10001', 'NYC Department of Finance'],
    ['assessor', '33131', 'Miami-Dade County Property Appraiser'],
    ['recorder', '70116', 'Orleans Parish Clerk of Court'],
    ['assessor', '63101', 'City of St. Louis Assessor'],
    ['assessor', '23601', 'City of Newport News Assessor'],
    ['recorder', '63101', 'City of St. Louis Recorder of Deeds'],
    ['recorder', '20500', 'DC Recorder of Deeds'],
    ['assessor', '90210', 'Los Angeles County Assessor'],
  ] as const)('%s in %s: %s', (kind, zip, name) => {
    expect(source(kind, zip)).toBe(name);
  });

  it('names every state’s tax agency, a Department of Revenue only where the state has one', () => {
    expect(stateTaxAgency('TX', 'Texas')).toBe('Texas Comptroller of Public Accounts');
    expect(stateTaxAgency('NY', 'New York')).toBe('New York State Department of Taxation and Finance');
    expect(stateTaxAgency('GA', 'Georgia')).toBe('Georgia Department of Revenue');
  });

  it('never names an office after a planning region, an independent city’s county form or a postal village', () => {
    const rng = createRng(5);
    const kinds: SourceKind[] = ['assessor', 'recorder', 'revenue', 'mls', 'permits', 'survey'];
    const wrong = /Connecticut County|Planning Region| city (Assessor|Recorder|Clerk|Surveyor)|undefined/;
    const bad = loadPlaces().flatMap((p) =>
      kinds.map((kind) => `${p.zip} ${sourceFor(kind, p, rng)}`).filter((s) => wrong.test(s)),
    );
    expect(bad).toEqual([]);
  });
});
