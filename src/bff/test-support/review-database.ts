import { afterEach } from 'vitest';
import type { Database } from '../db/database.ts';
import { createHarness, type HarnessOptions } from './harness.ts';
import { tempDatabaseAll } from './temp-database.ts';

export type Harness = ReturnType<typeof createHarness>;

/**
 * For one test file: a throwaway embedded database for its reviews, and `make()` for a BFF harness on it
 * whose review worker is stopped after each test (the test starts it).
 */
export function reviewDatabase(name: string) {
  const temp = tempDatabaseAll(name);
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.reviews?.worker.stop();
    current = undefined;
  });
  return {
    /** The database itself, to read what was committed. */
    get database(): Database {
      return temp.database;
    },
    /** The database's folder (its files can be read). */
    get dir() {
      return temp.dir;
    },
    make(options: Omit<HarnessOptions, 'database'> = {}): Harness {
      current = createHarness({ database: temp.database, ...options });
      return current;
    },
  };
}
