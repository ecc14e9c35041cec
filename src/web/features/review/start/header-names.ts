/*
 * Column names as files name them: what each names (a street, a ZIP, a parcel number), in English, German,
 * Spanish and French, and whose address it is (the property's, or the owner's mailing address).
 */

/**
 * A header cell folded for matching: words written together split where their capitals say ("SitusAddress",
 * "MailingCity", "ZIPCode" as GIS and CAD exports write them), accents dropped (NFKD, so "Dirección" is
 * "direccion"), ß as ss, "#" as "no", anything else not a letter or digit a space.
 */
export const foldHeader = (cell: string) =>
  cell
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/#/g, ' no ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

export type Role = 'address' | 'street' | 'number' | 'city' | 'state' | 'zip' | 'unit' | 'parcel' | 'other';

const set = (...names: string[]) => new Set(names);
/** Header names by role, folded, in English, German, Spanish and French (and what assessors' exports use). */
const ROLES: [Role, Set<string>][] = [
  [
    'address',
    set('address', 'addr', 'full address', 'location', 'adresse', 'direccion', 'domicilio', 'anschrift'),
  ],
  [
    'street',
    set(
      'street',
      'street address',
      'address line 1',
      'address 1',
      'addr1',
      'addr 1',
      'street 1',
      'street1',
      'street name',
      'line 1',
      'strasse',
      'str',
      'strassenname',
      'calle',
      'via',
      'rue',
      'voie',
    ),
  ],
  [
    'number',
    set(
      'no',
      'nr',
      'num',
      'number',
      'house number',
      'house no',
      'house num',
      'house nbr',
      'street number',
      'street no',
      'street num',
      'st no',
      'hausnr',
      'hausnummer',
      'haus nr',
      'hnr',
      'numero',
      'num ext',
      'numero exterior',
      'no de rue',
      'numero de rue',
    ),
  ],
  [
    'city',
    set(
      'city',
      'town',
      'municipality',
      'locality',
      'ort',
      'stadt',
      'gemeinde',
      'wohnort',
      'ciudad',
      'municipio',
      'localidad',
      'poblacion',
      'ville',
      'commune',
      'localite',
    ),
  ],
  ['state', set('state', 'st', 'province', 'region', 'bundesland', 'estado', 'provincia', 'etat', 'prov')],
  [
    'zip',
    set(
      'zip',
      'zip code',
      'zipcode',
      'zip5',
      'zip 5',
      'postal code',
      'postcode',
      'post code',
      'plz',
      'postleitzahl',
      'cp',
      'c p',
      'codigo postal',
      'code postal',
    ),
  ],
  [
    'unit',
    set(
      'unit',
      'unit no',
      'unit number',
      'apt',
      'apt no',
      'apartment',
      'suite',
      'ste',
      'address line 2',
      'address 2',
      'addr2',
      'street 2',
      'secondary',
      'whg',
      'whg nr',
      'wohnung',
      'wohnungsnr',
      'wohnungsnummer',
      'piso',
      'depto',
      'departamento',
      'apartamento',
      'appartement',
      'appt',
    ),
  ],
  [
    'parcel',
    set(
      'apn',
      'ain',
      'parcel',
      'parcel number',
      'parcel no',
      'parcel id',
      'parcel num',
      'parcelid',
      'parcel apn',
      'assessor parcel number',
      'pin',
      'pid',
      'folio',
      'folio number',
      'map lot',
      'flurstuck',
      'flurstucksnummer',
      'flurstuck nr',
      'referencia catastral',
      'parcelle',
    ),
  ],
  ['other', set('name', 'id', 'owner', 'note', 'notes', 'kind', 'type', 'county', 'country', 'land', 'pais')],
];

/** Words before a column's name that say which address it is: the property's, or a mailing one (not it). */
const PROPERTY_WORDS = set('situs', 'property', 'prop', 'site', 'physical', 'premises', 'location');
const MAILING_WORDS = set('mailing', 'mail', 'owner', 'owners', 'billing', 'correspondence', 'tax');

export interface HeaderCell {
  role: Role | null;
  /** Named as a mailing / owner address: never the property's. */
  mailing: boolean;
  /** Named as the property's ("Situs …", "Property …"). */
  property: boolean;
}

/** Names a data cell may hold too ("No" in a yes/no column): not enough alone to call a row a header. */
const WEAK_NAMES = set('no', 'nr', 'num', 'number', 'n');
export const isWeak = (cell: string) => WEAK_NAMES.has(foldHeader(cell));

/** What a header cell names: "Situs City" is the property's city; "Mailing Address" is not the property's. */
export function classifyHeader(cell: string): HeaderCell {
  const words = foldHeader(cell).split(' ');
  let mailing = false;
  let property = false;
  while (words.length > 1 && (PROPERTY_WORDS.has(words[0] ?? '') || MAILING_WORDS.has(words[0] ?? ''))) {
    const word = words.shift() ?? '';
    if (MAILING_WORDS.has(word)) mailing = true;
    else property = true;
  }
  const name = words.join(' ');
  const role = ROLES.find(([, names]) => names.has(name))?.[0] ?? null;
  return { role, mailing, property };
}
