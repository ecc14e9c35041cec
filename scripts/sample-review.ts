/**
 * Writes public/sample-review.csv: the 31 addresses "Try a sample review" runs. They are picked from the
 * reference dataset `npm start` builds by default (1,000,000 records, REFERENCE_SEED), written the ways
 * people really write addresses, and each is checked against the reference's own resolver so it does what
 * its kind says: clean, messy and typo rows match (at every confidence level), ambiguous rows need a pick,
 * unknown rows are not found, repeats are looked up once.
 *
 *   node --import tsx scripts/sample-review.ts [dataDir]     (dataDir: REFERENCE_DATA_DIR, default data/)
 *
 * The first run builds the dataset if it is not there yet (about 25 s).
 */
import { writeFileSync } from 'node:fs';
import Papa from 'papaparse';
import type { UpstreamProperty } from '../src/contract/index.ts';
import { readReferenceConfig } from '../src/reference/config.ts';
import { openDatabase } from '../src/reference/dataset/database.ts';
import { createRng } from '../src/reference/dataset/prng.ts';
import { SqlitePropertyStore } from '../src/reference/resolver/sqlite-store.ts';

const OUT = 'public/sample-review.csv';
// 31 rows, 27 lookups: the BFF spreads review work evenly over the rate-limit window (ADR 004), one a second at
// the demo key's 60 a minute, so the sample finishes in about half a minute and still shows every outcome and
// confidence level.
const WANT = { clean: 10, messy: 6, typo: 4, ambiguous: 4, unknown: 5, repeat: 2 } as const;
type Kind = keyof typeof WANT;

const SUFFIXES: Record<string, string> = {
  St: 'Street',
  Ave: 'Avenue',
  Dr: 'Drive',
  Ln: 'Lane',
  Rd: 'Road',
  Blvd: 'Boulevard',
  Ct: 'Court',
  Pl: 'Place',
  Ter: 'Terrace',
  Way: 'Way',
  Cir: 'Circle',
  Pkwy: 'Parkway',
  Hwy: 'Highway',
  Trl: 'Trail',
};

const config = readReferenceConfig(process.env);
const dir = process.argv[2] ?? config.dataDir;
const { db } = await openDatabase({ records: 1_000_000, seed: config.seed, dir });
const store = new SqlitePropertyStore(db);
const rng = createRng(20261121);
const total = store.count();
const byRid = db.prepare('SELECT * FROM property WHERE rid = ?');

const rows: { address: string; kind: Kind }[] = [];
const used = new Set<string>();
const count = (kind: Kind) => rows.filter((r) => r.kind === kind).length;

function randomRecord(): UpstreamProperty & { rid: number } {
  for (;;) {
    const rid = rng.int(1, total);
    const r = byRid.get(rid) as (UpstreamProperty & { rid: number }) | undefined;
    if (r && !used.has(r.property_id)) return r;
  }
}

const matches = (input: string, id: string) => {
  const out = store.resolve(input);
  return out.kind === 'found' && out.property.property_id === id;
};

function add(address: string, kind: Kind, id?: string) {
  if (count(kind) >= WANT[kind]) return false;
  rows.push({ address, kind });
  if (id) used.add(id);
  return true;
}

// Clean: exactly as the service writes them, a third at each confidence level.
for (const confidence of ['high', 'medium', 'low'] as const) {
  let got = 0;
  while (got < WANT.clean / 3) {
    const r = randomRecord();
    if (r.confidence !== confidence || !matches(r.address, r.property_id)) continue;
    add(r.address, 'clean', r.property_id);
    got++;
  }
}

// Messy: lower case, no commas, suffix spelled out, no ZIP, stray spaces, "#" for the unit.
const messy = (r: UpstreamProperty, variant: number): string => {
  const suffix = r.street_name.split(' ').at(-1) ?? '';
  const street = SUFFIXES[suffix]
    ? `${r.street_name.slice(0, -suffix.length)}${SUFFIXES[suffix]}`
    : r.street_name;
  const unit = r.unit ? ` #${r.unit}` : '';
  switch (variant % 4) {
    case 0:
      return `${r.street_number} ${street}${unit} ${r.city} ${r.state}`.toLowerCase();
    case 1:
      return `  ${r.street_number}   ${street.toUpperCase()}${unit},${r.city.toUpperCase()},  ${r.state} `;
    case 2:
      return `${r.street_number} ${r.street_name}${unit}, ${r.zip}`;
    default:
      return `${r.street_number} ${street}${unit}, ${r.city} ${r.state} ${r.zip}`.replace(/ /g, '  ');
  }
};
for (let v = 0; count('messy') < WANT.messy; v++) {
  const r = randomRecord();
  const input = messy(r, v);
  if (input !== r.address && matches(input, r.property_id)) add(input, 'messy', r.property_id);
}

// Typos: one letter of the street name swapped or dropped (never its first two), with the city and state.
for (let v = 0; count('typo') < WANT.typo; v++) {
  const r = randomRecord();
  const words = r.street_name.split(' ');
  const w = words.findIndex((word) => /^[A-Za-z]{6,}$/.test(word));
  if (w === -1) continue;
  const word = words[w] as string;
  const at = rng.int(2, word.length - 2);
  const typo =
    v % 2 === 0
      ? `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`
      : word.slice(0, at) + word.slice(at + 1);
  if (typo.toLowerCase() === word.toLowerCase()) continue;
  words[w] = typo;
  const input = `${r.street_number} ${words.join(' ')}${r.unit ? ` Apt ${r.unit}` : ''}, ${r.city}, ${r.state}`;
  if (matches(input, r.property_id)) add(input, 'typo', r.property_id);
}

// Ambiguous: a number on Main St with no city (many towns have one), or with only a state.
const mains = db
  .prepare(
    "SELECT street_number, state FROM property WHERE street_name = 'Main St' AND unit IS NULL LIMIT 5000",
  )
  .all() as { street_number: string; state: string }[];
for (let v = 0; count('ambiguous') < WANT.ambiguous && v < 10_000; v++) {
  const m = rng.pick(mains);
  const input = v % 3 === 2 ? `${m.street_number} Main Street, ${m.state}` : `${m.street_number} Main St`;
  if (rows.some((r) => r.address === input)) continue;
  if (store.resolve(input).kind === 'ambiguous') add(input, 'ambiguous');
}

// Unknown: a house number past the end of a real street, a street the town does not have, a unit the
// building does not have, and text that is no address at all.
const nonsense = ['Somewhere over the rainbow', 'c/o the front desk', 'TBD', 'PO Box 1234, Springfield, IL'];
for (const text of nonsense) if (store.resolve(text).kind === 'not_found') add(text, 'unknown');
for (let v = 0; count('unknown') < WANT.unknown; v++) {
  const r = randomRecord();
  const input =
    v % 3 === 0
      ? `${rng.int(90_000, 99_999)} ${r.street_name}, ${r.city}, ${r.state} ${r.zip}`
      : v % 3 === 1
        ? `${r.street_number} Quillfeather Crossing, ${r.city}, ${r.state}`
        : `${r.street_number} ${r.street_name} Apt 9999, ${r.city}, ${r.state} ${r.zip}`;
  const kind = store.resolve(input).kind;
  if (kind === 'not_found' || kind === 'unit_not_found') add(input, 'unknown');
}

// Repeats: rows already in the list again, some written differently (the same address key).
const cleanRows = rows.filter((r) => r.kind === 'clean');
for (let v = 0; count('repeat') < WANT.repeat; v++) {
  const r = rng.pick(cleanRows);
  add(v % 2 === 0 ? r.address : r.address.toUpperCase(), 'repeat');
}

// Shuffled so a demo shows every kind from the first seconds, not one kind after another.
for (let i = rows.length - 1; i > 0; i--) {
  const j = Math.floor(rng.next() * (i + 1));
  [rows[i], rows[j]] = [rows[j] as (typeof rows)[number], rows[i] as (typeof rows)[number]];
}
writeFileSync(OUT, `${Papa.unparse(rows, { columns: ['address', 'kind'], newline: '\n' })}\n`);
console.log(
  `${OUT}: ${rows.length} rows`,
  Object.fromEntries(Object.keys(WANT).map((k) => [k, count(k as Kind)])),
);
