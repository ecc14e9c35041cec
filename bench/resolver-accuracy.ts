/**
 * Resolver accuracy on messy input: `node --import tsx bench/resolver-accuracy.ts <dir> <records> <seed> [perKind]`
 * opens (or builds) the dataset, generates the messy-input set from it (src/reference/testing/messy-inputs.ts),
 * resolves every case and prints the figures as JSON on the last line. `npm run bench` runs it in its own
 * process on the full dataset; src/reference/testing/messy-inputs.test.ts runs the same on a small one.
 */
import { openDatabase } from '../src/reference/dataset/database.ts';
import { SqlitePropertyStore } from '../src/reference/resolver/sqlite-store.ts';
import { measureAccuracy, messyCases } from '../src/reference/testing/messy-inputs.ts';

const [dir = 'data', recordsText = '1000000', seedText = '20261121', perKindText = '1000'] =
  process.argv.slice(2);
const { db } = await openDatabase({ dir, records: Number(recordsText), seed: Number(seedText) });
const store = new SqlitePropertyStore(db);
const t = performance.now();
// The set's own seed is fixed: the same dataset always gets the same inputs.
const set = messyCases(db, { perKind: Number(perKindText), seed: 7919 });
const generateMs = performance.now() - t;
const report = measureAccuracy(store, set);
if (process.env.ACCURACY_VERBOSE) console.error(JSON.stringify(report, null, 2));
console.log(JSON.stringify({ ...report, generateMs }));
