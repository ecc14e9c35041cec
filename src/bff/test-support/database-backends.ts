import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../db/database.ts';
import { PostgresServer, postgresAvailable } from './postgres-process.ts';

export interface DatabaseBackend {
  name: 'SQLite' | 'PostgreSQL';
  /** The open database, inside a test. */
  readonly database: Database;
}

/**
 * For one test file that must answer the same on both databases: the embedded SQLite and, where it is
 * installed, a throwaway PostgreSQL, each opened once for the file. Use with `describe.each(backends)`.
 */
export function databaseBackends(name: string): DatabaseBackend[] {
  return [sqlite(name), ...(postgresAvailable() ? [postgres()] : [])];
}

function backend(
  name: DatabaseBackend['name'],
  open: () => Promise<Database>,
  cleanUp: () => Promise<void>,
): DatabaseBackend {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await open();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await cleanUp();
  });
  return {
    name,
    get database() {
      if (!database) throw new Error(`${name}: the database opens before the tests`);
      return database;
    },
  };
}

function sqlite(name: string): DatabaseBackend {
  const dir = mkdtempSync(join(tmpdir(), `proplens-${name}-`));
  return backend(
    'SQLite',
    () => openDatabase({ dir }),
    async () => rmSync(dir, { recursive: true, force: true }),
  );
}

function postgres(): DatabaseBackend {
  let server: PostgresServer | undefined;
  return backend(
    'PostgreSQL',
    async () => {
      server = await PostgresServer.start();
      return openDatabase({ url: server.url, dir: '' });
    },
    async () => server?.destroy(),
  );
}
