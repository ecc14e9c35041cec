/**
 * Runs in its own process so time and memory are the reference's alone.
 * `build <dir> <records> <seed>`: builds the dataset, prints { buildMs }.
 * `query <dir> <records> <seed>`: warm start, resolve and search timings, RSS; prints JSON.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/reference/dataset/database.ts';
import { SqlitePropertyStore } from '../src/reference/resolver/sqlite-store.ts';

const [mode, dir = '', recordsText = '', seedText = ''] = process.argv.slice(2);
const records = Number(recordsText);
const seed = Number(seedText);

function percentiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

function time(n: number, work: (i: number) => void) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    work(i);
    out.push(performance.now() - t);
  }
  return percentiles(out);
}

/** Swaps two neighbouring letters of the street name: the commonest typo. */
function typo(street: string, i: number): string {
  const words = street.split(' ');
  const w = words.find((x) => x.length >= 5) ?? words[0] ?? street;
  const at = 1 + (i % Math.max(1, w.length - 3));
  const swapped = w.slice(0, at) + (w[at + 1] ?? '') + (w[at] ?? '') + w.slice(at + 2);
  return street.replace(w, swapped);
}

const SAMPLE_WHERE = 'unit IS NULL AND rid % 997 = 3 ORDER BY rid LIMIT 1000';

if (mode === 'build') {
  const t = performance.now();
  const { db } = await openDatabase({ records, seed, dir });
  const buildMs = performance.now() - t;
  // The throughput phases replay these addresses over HTTP (the same rows the query mode times).
  const sample = db.prepare(`SELECT address FROM property WHERE ${SAMPLE_WHERE}`).pluck().all() as string[];
  writeFileSync(join(dir, 'sample.json'), JSON.stringify(sample));
  // Distinct addresses for the review-pacing phase, whatever the dataset's size.
  const pacing = db
    .prepare('SELECT DISTINCT address FROM property WHERE unit IS NULL AND rid % 7 = 2 LIMIT 2000')
    .pluck()
    .all() as string[];
  writeFileSync(join(dir, 'pacing.json'), JSON.stringify(pacing));
  db.close();
  console.log(JSON.stringify({ buildMs }));
} else {
  const t = performance.now();
  const { db } = await openDatabase({ records, seed, dir });
  const store = new SqlitePropertyStore(db);
  const warmMs = performance.now() - t;
  const rssAfterOpen = process.memoryUsage().rss;
  const sample = db
    .prepare(
      `SELECT address, street_number, street_name, city, state, zip FROM property WHERE ${SAMPLE_WHERE}`,
    )
    .all() as {
    address: string;
    street_number: string;
    street_name: string;
    city: string;
    state: string;
    zip: string;
  }[];
  const n = sample.length;
  let misses = 0;
  const known = time(2000, (i) => {
    const p = sample[i % n] as (typeof sample)[number];
    const r = store.resolve(p.address);
    if (r.kind !== 'found' && r.kind !== 'ambiguous') misses++;
  });
  const messy = time(2000, (i) => {
    const p = sample[i % n] as (typeof sample)[number];
    store.resolve(
      `  ${p.street_number} ${p.street_name.toLowerCase()}   ${p.city.toUpperCase()} ${p.state.toLowerCase()}`,
    );
  });
  const typoWithPlace = time(1000, (i) => {
    const p = sample[i % n] as (typeof sample)[number];
    store.resolve(`${p.street_number} ${typo(p.street_name, i)}, ${p.city}, ${p.state}`);
  });
  const typoWithZip = time(1000, (i) => {
    const p = sample[i % n] as (typeof sample)[number];
    store.resolve(`${p.street_number} ${typo(p.street_name, i)} ${p.zip}`);
  });
  const typoNoPlace = time(300, (i) => {
    const p = sample[i % n] as (typeof sample)[number];
    store.resolve(`${p.street_number} ${typo(p.street_name, i)}`);
  });
  const queries = [
    'main st',
    '12 oak',
    'austin tx',
    'congress a',
    '1',
    '100 main',
    'springfield',
    'elm st 6',
  ];
  const search = time(400, (i) => store.search(queries[i % queries.length] as string, 20, 0));
  console.log(
    JSON.stringify({
      warmMs,
      rssAfterOpenMb: rssAfterOpen / 1e6,
      rssAfterQueriesMb: process.memoryUsage().rss / 1e6,
      misses,
      known,
      messy,
      typoWithPlace,
      typoWithZip,
      typoNoPlace,
      search,
    }),
  );
}
