import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from './dataset/database.ts';
import { SqlitePropertyStore } from './resolver/sqlite-store.ts';

const open = new Map<string, { db: Database.Database; store: SqlitePropertyStore }>();

/**
 * A small generated dataset for tests, built once per machine into the temp folder (and per process opened
 * once). Same seed, same records: tests may look addresses up in it.
 */
export async function openTestStore(
  records = 3000,
  seed = 7,
): Promise<{ db: Database.Database; store: SqlitePropertyStore }> {
  const key = `${records}:${seed}`;
  let entry = open.get(key);
  if (!entry) {
    const { db } = await openDatabase({ records, seed, dir: join(tmpdir(), 'proplens-test-data') });
    entry = { db, store: new SqlitePropertyStore(db) };
    open.set(key, entry);
  }
  return entry;
}
