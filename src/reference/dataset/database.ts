import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { normalizeName, normalizeUnit } from '../resolver/normalize.ts';
import type { GeneratedProperty } from './generate.ts';

/** Bump when the generator or schema changes: an older file is rebuilt on next start. */
export const SCHEMA_VERSION = 16;

export const PROPERTY_COLUMNS = [
  'property_id',
  'address',
  'street_number',
  'street_name',
  'unit',
  'city',
  'state',
  'zip',
  'county',
  'source',
  'source_kind',
  'confidence',
  'last_verified',
  'parcel_number',
  'property_type',
  'year_built',
  'living_area_sqft',
  'lot_size_sqft',
  'bedrooms',
  'bathrooms',
  'assessed_value',
  'last_sale_date',
  'last_sale_price',
  'unit_count',
] as const;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE property (
  rid INTEGER PRIMARY KEY,
  ${PROPERTY_COLUMNS.map((c) => `${c} ${/_sqft|year|bed|bath|value|price|count/.test(c) ? 'NUMERIC' : 'TEXT'}`).join(',\n  ')},
  street_key TEXT NOT NULL,
  city_key TEXT NOT NULL,
  unit_key TEXT NOT NULL
);
CREATE TABLE street (zip TEXT NOT NULL, street_key TEXT NOT NULL, city_key TEXT NOT NULL, state TEXT NOT NULL,
  PRIMARY KEY (zip, street_key)) WITHOUT ROWID;
CREATE VIRTUAL TABLE address_fts USING fts5(text, content='', detail='none', prefix='1 2 3');
`;

const INDEXES = `
CREATE INDEX property_address ON property (street_key, street_number, state);
CREATE INDEX property_zip_address ON property (zip, street_key, street_number);
CREATE UNIQUE INDEX property_id_unique ON property (property_id);
`;

export interface DatabaseOptions {
  records: number;
  seed: number;
  dir: string;
  /** Called as the build goes; `done` of `total` records written. */
  onProgress?: (done: number, total: number) => void;
  /** Called when the records are written and the indexes are being built (the last quarter or so). */
  onIndexing?: () => void;
}

export function databasePath({
  dir,
  records,
  seed,
}: Pick<DatabaseOptions, 'dir' | 'records' | 'seed'>): string {
  return join(dir, `reference-v${SCHEMA_VERSION}-${records}-${seed}.sqlite`);
}

function readMeta(db: Database.Database): Record<string, string> {
  try {
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } catch {
    return {};
  }
}

/**
 * Opens the dataset, building it first when the file is missing, unfinished or from an older generator.
 * The build writes to a temporary file and renames it into place, so an interrupted build never leaves a
 * file that looks finished.
 */
export async function openDatabase(
  options: DatabaseOptions,
): Promise<{ db: Database.Database; built: boolean }> {
  const path = databasePath(options);
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const meta = readMeta(db);
    if (
      meta.schema === String(SCHEMA_VERSION) &&
      meta.records === String(options.records) &&
      meta.seed === String(options.seed) &&
      meta.complete === '1'
    ) {
      return { db, built: false };
    }
    db.close();
    rmSync(path, { force: true });
  }
  removeOlderVersions(options.dir);
  // The generator (faker's street names, 41,000 ZIP codes) is loaded only to build: a warm start skips ~80 MB.
  const { generateProperties } = await import('./generate.ts');
  buildDatabase(path, generateProperties({ count: options.records, seed: options.seed }), options);
  return { db: new Database(path, { readonly: true, fileMustExist: true }), built: true };
}

/** Files from an older generator are never opened again: reclaim their space. */
function removeOlderVersions(dir: string): void {
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir)) {
    const m = /^reference-v(\d+)-\d+-\d+\.sqlite(-wal|-shm)?$/.exec(f);
    if (m && Number(m[1]) < SCHEMA_VERSION) rmSync(join(dir, f), { force: true });
  }
}

/**
 * Writes a dataset file from records (the generator's, or a test's hand-made ones) with its indexes. `options`
 * says what the file holds (records, seed) for the next start's check.
 */
export function buildDatabase(
  path: string,
  records: Iterable<GeneratedProperty>,
  options: Pick<DatabaseOptions, 'records' | 'seed' | 'onProgress' | 'onIndexing'>,
): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.building`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  try {
    // A throwaway file being bulk-loaded: durability buys nothing until the final rename.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -64000');
    db.exec(SCHEMA);
    const insert = db.prepare(
      `INSERT INTO property (${PROPERTY_COLUMNS.join(', ')}, street_key, city_key, unit_key)
       VALUES (${PROPERTY_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?)`,
    );
    const total = options.records;
    const insertMany = db.transaction((chunk: unknown[][]) => {
      for (const values of chunk) insert.run(values);
    });
    // Street and place names repeat across thousands of records: normalise each once.
    const normal = new Map<string, string>();
    const key = (name: string) => {
      let k = normal.get(name);
      if (k === undefined) {
        k = normalizeName(name);
        normal.set(name, k);
      }
      return k;
    };
    let done = 0;
    let rows: unknown[][] = [];
    for (const p of records) {
      const unitKey = p.unit ? normalizeUnit(p.unit) : '';
      rows.push([...PROPERTY_COLUMNS.map((c) => p[c]), key(p.street_display), key(p.city), unitKey]);
      done++;
      if (rows.length === 20_000) {
        insertMany(rows);
        rows = [];
        options.onProgress?.(done, total);
      }
    }
    insertMany(rows);
    options.onProgress?.(done, total);
    options.onIndexing?.();
    // Searchable text: the address in normal form (so "north main street" finds "N Main St") and the county.
    // One statement each is far faster than a call per row from JavaScript.
    db.exec(`INSERT INTO address_fts (rowid, text)
      SELECT rid, street_number || ' ' || street_key || ' ' || unit_key || ' ' || city_key || ' ' || state || ' ' || zip || ' ' || county
      FROM property`);
    db.exec(
      'INSERT OR IGNORE INTO street (zip, street_key, city_key, state) SELECT zip, street_key, city_key, state FROM property',
    );
    db.exec(INDEXES);
    db.exec("INSERT INTO address_fts(address_fts) VALUES('optimize')");
    const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    for (const [k, v] of Object.entries({
      schema: String(SCHEMA_VERSION),
      records: String(total),
      seed: String(options.seed),
      complete: '1',
    })) {
      setMeta.run(k, v);
    }
    // No ANALYZE: every lookup is an equality match on one obvious index, which the planner picks without
    // statistics (checked with EXPLAIN QUERY PLAN), and it would cost over a second of the build.
    // WAL: readers never block one another or a future writer (several processes may open one file).
    db.pragma('journal_mode = WAL');
    db.close();
    renameSync(tmp, path);
  } catch (err) {
    db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}
