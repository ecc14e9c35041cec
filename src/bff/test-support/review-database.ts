import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../db/database.ts';
import { createHarness, type HarnessOptions } from './harness.ts';

export type Harness = ReturnType<typeof createHarness>;

/**
 * For one test file: a throwaway embedded database for its reviews, and `make()` for a BFF harness on it
 * whose review worker is stopped after each test (the test starts it).
 */
export function reviewDatabase(name: string) {
  let dir = '';
  let database: Database | undefined;
  let current: Harness | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `proplens-${name}-`));
    database = await openDatabase({ dir });
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await current?.reviews?.worker.stop();
    current = undefined;
  });
  return {
    /** The database itself, to read what was committed. */
    get database(): Database {
      if (!database) throw new Error('reviewDatabase: the database opens before the tests');
      return database;
    },
    /** The database's folder (its files can be read). */
    get dir() {
      return dir;
    },
    make(options: Omit<HarnessOptions, 'database'> = {}): Harness {
      if (!database) throw new Error('reviewDatabase: make() runs inside a test');
      current = createHarness({ database, ...options });
      return current;
    },
  };
}
