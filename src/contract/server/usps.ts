/**
 * USPS Publication 28 tables, shared by the servers that read addresses: the BFF's match explanation and the
 * reference service's normaliser. Server-only (src/contract/server/): the suffix table alone is 4 KB the
 * browser has no use for; the two tables the browser does read, the state names and the unit designators, are
 * in ../address-tables.ts.
 */
import { NUMBERLESS_DESIGNATORS, US_STATES } from '../address-tables.ts';

export { NUMBERLESS_DESIGNATORS };

/**
 * USPS Publication 28 street suffixes (C1), one group per ";": the standard abbreviation, then the suffix
 * written out (the primary name: AVENUE for AVE, PARK for PARK), then every other accepted spelling. The one
 * suffix table: the match explanation and the reference's resolver both read it.
 */
export const USPS_SUFFIXES =
  'ALY ALLEY ALLEE ALLY;ANX ANEX ANNEX ANNX;ARC ARCADE;AVE AVENUE AV AVEN AVENU AVN AVNUE;BCH BEACH;' +
  'BG BURG;BGS BURGS;BLF BLUFF BLUF;BLFS BLUFFS;BLVD BOULEVARD BOUL BOULV;BND BEND;BR BRANCH BRNCH;' +
  'BRG BRIDGE BRDGE;BRK BROOK;BRKS BROOKS;BTM BOTTOM BOT BOTTM;BYP BYPASS BYPA BYPAS BYPS;' +
  'BYU BAYOU BAYOO;CIR CIRCLE CIRC CIRCL CRCL CRCLE;CIRS CIRCLES;CLB CLUB;CLF CLIFF;CLFS CLIFFS;' +
  'CMN COMMON;CMNS COMMONS;COR CORNER;CORS CORNERS;CP CAMP CMP;CPE CAPE;CRES CRESCENT CRSENT CRSNT;' +
  'CRK CREEK;CRSE COURSE;CRST CREST;CSWY CAUSEWAY CAUSWA;CT COURT;' +
  'CTR CENTER CEN CENT CENTR CENTRE CNTER CNTR;CTRS CENTERS;CTS COURTS;CURV CURVE;CV COVE;CVS COVES;' +
  'CYN CANYON CANYN CNYN;DL DALE;DM DAM;DR DRIVE DRIV DRV;DRS DRIVES;DV DIVIDE DIV DVD;EST ESTATE;' +
  'ESTS ESTATES;EXPY EXPRESSWAY EXP EXPR EXPRESS EXPW;EXT EXTENSION EXTN EXTNSN;EXTS EXTENSIONS;' +
  'FALL FALL;FLD FIELD;FLDS FIELDS;FLS FALLS;FLT FLAT;FLTS FLATS;FRD FORD;FRDS FORDS;FRG FORGE FORG;' +
  'FRGS FORGES;FRK FORK;FRKS FORKS;FRST FOREST FORESTS;FRY FERRY FRRY;FT FORT FRT;' +
  'FWY FREEWAY FREEWY FRWAY FRWY;GDN GARDEN GARDN GRDEN GRDN;GDNS GARDENS GRDNS;GLN GLEN;GLNS GLENS;' +
  'GRN GREEN;GRNS GREENS;GRV GROVE GROV;GRVS GROVES;GTWY GATEWAY GATEWY GATWAY GTWAY;' +
  'HBR HARBOR HARB HARBR HRBOR;HBRS HARBORS;HL HILL;HLS HILLS;HOLW HOLLOW HLLW HOLLOWS HOLWS;' +
  'HTS HEIGHTS HT;HVN HAVEN;HWY HIGHWAY HIGHWY HIWAY HIWY HWAY;INLT INLET;IS ISLAND ISLND;' +
  'ISLE ISLE ISLES;ISS ISLANDS ISLNDS;JCT JUNCTION JCTION JCTN JUNCTN JUNCTON;JCTS JUNCTIONS JCTNS;' +
  'KNL KNOLL KNOL;KNLS KNOLLS;KY KEY;KYS KEYS;LAND LAND;LCK LOCK;LCKS LOCKS;LDG LODGE LDGE LODG;' +
  'LF LOAF;LGT LIGHT;LGTS LIGHTS;LK LAKE;LKS LAKES;LN LANE;LNDG LANDING LNDNG;LOOP LOOP LOOPS;' +
  'MALL MALL;MDW MEADOW;MDWS MEADOWS MDW MEDOWS;MEWS MEWS;ML MILL;MLS MILLS;MNR MANOR;MNRS MANORS;' +
  'MSN MISSION MISSN MSSN;MT MOUNT MNT;MTN MOUNTAIN MNTAIN MNTN MOUNTIN MTIN;MTNS MOUNTAINS MNTNS;' +
  'MTWY MOTORWAY;NCK NECK;OPAS OVERPASS;ORCH ORCHARD ORCHRD;OVAL OVAL OVL;PARK PARK PARKS PRK;' +
  'PASS PASS;PATH PATH PATHS;PIKE PIKE PIKES;PKWY PARKWAY PARKWAYS PARKWY PKWAY PKWYS PKY;PL PLACE;' +
  'PLN PLAIN;PLNS PLAINS;PLZ PLAZA PLZA;PNE PINE;PNES PINES;PR PRAIRIE PRR;PRT PORT;PRTS PORTS;' +
  'PSGE PASSAGE;PT POINT;PTS POINTS;RADL RADIAL RAD RADIEL;RAMP RAMP;RD ROAD;RDG RIDGE RDGE;' +
  'RDGS RIDGES;RDS ROADS;RIV RIVER RIVR RVR;RNCH RANCH RANCHES RNCHS;ROW ROW;RPD RAPID;RPDS RAPIDS;' +
  'RST REST;RTE ROUTE;RUE RUE;RUN RUN;SHL SHOAL;SHLS SHOALS;SHR SHORE SHOAR;SHRS SHORES SHOARS;' +
  'SKWY SKYWAY;SMT SUMMIT SUMIT SUMITT;SPG SPRING SPNG SPRNG;SPGS SPRINGS SPNGS SPRNGS;SPUR SPUR SPURS;' +
  'SQ SQUARE SQR SQRE SQU;SQS SQUARES SQRS;ST STREET STR STRT;STA STATION STATN STN;' +
  'STRA STRAVENUE STRAV STRAVEN STRAVN STRVN STRVNUE;STRM STREAM STREME;STS STREETS;TER TERRACE TERR;' +
  'TPKE TURNPIKE TRNPK TURNPK;TRAK TRACK TRACKS TRK TRKS;TRCE TRACE TRACES;TRFY TRAFFICWAY;' +
  'TRL TRAIL TRAILS TRLS;TRLR TRAILER TRLRS;TRWY THROUGHWAY;TUNL TUNNEL TUNEL TUNLS TUNNELS TUNNL;' +
  'UN UNION;UNS UNIONS;UPAS UNDERPASS;VIA VIADUCT VDCT VIADCT;VIS VISTA VIST VST VSTA;VL VILLE;' +
  'VLG VILLAGE VILL VILLAG VILLG VILLIAGE;VLGS VILLAGES;VLY VALLEY VALLY VLLY;VLYS VALLEYS;VW VIEW;' +
  'VWS VIEWS;WALK WALK WALKS;WALL WALL;WAY WAY WY;WAYS WAYS;WL WELL;WLS WELLS;XING CROSSING CRSSNG;' +
  'XRD CROSSROAD;XRDS CROSSROADS';

/** Directionals (USPS B), written out → standard. */
export const DIRECTIONALS: Readonly<Record<string, string>> = {
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
};

/** Ordinal street names written out → standard ("First" is 1ST). */
export const ORDINALS: Readonly<Record<string, string>> = {
  FIRST: '1ST',
  SECOND: '2ND',
  THIRD: '3RD',
  FOURTH: '4TH',
  FIFTH: '5TH',
  SIXTH: '6TH',
  SEVENTH: '7TH',
  EIGHTH: '8TH',
  NINTH: '9TH',
  TENTH: '10TH',
  ELEVENTH: '11TH',
  TWELFTH: '12TH',
};

/** Abbreviated wherever they stand, in street and place names alike ("Saint Louis", "Fort Worth"). */
export const ABBREVIATED_WORDS: Readonly<Record<string, string>> = { SAINT: 'ST', MOUNT: 'MT', FORT: 'FT' };

/*
 * Lookups built from the tables on first use, not at load: while contract/index.ts still re-exports a server
 * module for a caller not moved yet, a table built at load would be code the browser bundle keeps (work at
 * load is a side effect a bundler may not drop), and `npm run check:bundle` would refuse the build.
 */
let suffixStandards: Map<string, string> | null = null;
let directionalWords: Set<string> | null = null;
let statesSpelt: { words: string[]; code: string }[] | null = null;

/** Any accepted spelling of a street suffix, upper case, to its standard abbreviation: AVENUE, AVEN, AV -> AVE. */
export function suffixStandard(word: string): string | undefined {
  if (!suffixStandards) {
    suffixStandards = new Map();
    for (const group of USPS_SUFFIXES.split(';')) {
      const [standard, ...others] = group.split(' ') as [string, ...string[]];
      for (const spelling of [standard, ...others]) suffixStandards.set(spelling, standard);
    }
  }
  return suffixStandards.get(word);
}

/** Whether an upper-case word is a street suffix, in any accepted spelling (AVE, AVENUE, AV). */
export const isSuffixWord = (word: string): boolean => suffixStandard(word) !== undefined;

/** Whether an upper-case word is a directional, written out or standard (NORTH, N). */
export function isDirectionalWord(word: string): boolean {
  directionalWords ??= new Set([...Object.keys(DIRECTIONALS), ...Object.values(DIRECTIONALS)]);
  return directionalWords.has(word);
}

/**
 * An upper-case word in USPS standard form: directionals, ordinals, Saint/Mount/Fort and suffixes abbreviated
 * (NORTH -> N, FIRST -> 1ST, SAINT -> ST, AVENUE -> AVE); any other word as it is.
 */
export function standardWord(word: string): string {
  return DIRECTIONALS[word] ?? ORDINALS[word] ?? ABBREVIATED_WORDS[word] ?? suffixStandard(word) ?? word;
}

/** Every way to write a state as upper-case words, longest first: ["NEW", "YORK"] and ["NY"] are both NY. */
export function stateSpellings(): readonly { words: readonly string[]; code: string }[] {
  statesSpelt ??= Object.entries(US_STATES)
    .flatMap(([code, name]) => [
      { words: name.toUpperCase().split(' '), code },
      { words: [code], code },
    ])
    .concat([{ words: ['WASHINGTON', 'DC'], code: 'DC' }])
    .sort((a, b) => b.words.length - a.words.length);
  return statesSpelt;
}
