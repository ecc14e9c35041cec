import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Database, type DatabaseConfig, openDatabase } from '../db/database.ts';

export interface TempDatabase {
  /** The open database, inside a test. */
  readonly database: Database;
  /** The database's folder (its files can be read, changed or removed). */
  readonly dir: string;
  /** Opens the database in `dir` again once the test has closed it (with a `notice`, say); it is then the one closed after. */
  reopen(options?: Omit<DatabaseConfig, 'dir' | 'url'>): Promise<Database>;
}

/**
 * For one test file (or `describe`): a fresh embedded SQLite database in a temp folder for each test, closed and
 * its folder removed after it. The file's own `afterEach`, registered after this, runs before the close
 * (vitest runs after-hooks as a stack): the place to stop a worker that still uses the database.
 */
export function tempDatabaseEach(name: string): TempDatabase {
  return tempDatabase(name, 'tempDatabaseEach', beforeEach, afterEach);
}

/** As `tempDatabaseEach`, but one database shared by all the tests of the file (or `describe`). */
export function tempDatabaseAll(name: string): TempDatabase {
  return tempDatabase(name, 'tempDatabaseAll', beforeAll, afterAll);
}

type Hook = (fn: () => Promise<void>) => void;

function tempDatabase(name: string, helper: string, before: Hook, after: Hook): TempDatabase {
  let dir: string | undefined;
  let database: Database | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), `proplens-${name}-`));
    database = await openDatabase({ dir });
  });
  after(async () => {
    await database?.close();
    database = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return {
    get database() {
      if (!database) throw new Error(`${helper}('${name}'): the database is open only inside a test`);
      return database;
    },
    get dir() {
      if (!dir) throw new Error(`${helper}('${name}'): the folder exists only inside a test`);
      return dir;
    },
    async reopen(options = {}) {
      if (!dir) throw new Error(`${helper}('${name}'): reopen() runs inside a test`);
      database = await openDatabase({ ...options, dir });
      return database;
    },
  };
}
