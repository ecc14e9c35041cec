import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databasePath, openDatabase, SCHEMA_VERSION } from './database.ts';

const dir = mkdtempSync(join(tmpdir(), 'proplens-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The first build imports the generator (faker, 41,000 ZIP codes): seconds on a loaded machine, where the
// default 5 s timed the first test out. Nothing here measures speed.
describe('openDatabase', { timeout: 30_000 }, () => {
  it('builds once, reports progress, and reuses the file on the next start', async () => {
    const progress: number[] = [];
    const first = await openDatabase({
      dir,
      records: 500,
      seed: 3,
      onProgress: (done) => progress.push(done),
    });
    expect(first.built).toBe(true);
    expect(progress.at(-1)).toBe(500);
    expect((first.db.prepare('SELECT count(*) AS n FROM property').get() as { n: number }).n).toBe(500);
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    first.db.close();
    const again = await openDatabase({ dir, records: 500, seed: 3 });
    expect(again.built).toBe(false);
    again.db.close();
  });

  it('rebuilds a file that was never finished, and removes files of older generators', async () => {
    const path = databasePath({ dir, records: 400, seed: 3 });
    writeFileSync(path, 'not a database');
    const stale = join(dir, `reference-v${SCHEMA_VERSION - 1}-400-3.sqlite`);
    writeFileSync(stale, 'old');
    const { db, built } = await openDatabase({ dir, records: 400, seed: 3 });
    expect(built).toBe(true);
    db.close();
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(dir).some((f) => f.endsWith('.building'))).toBe(false);
  });
});
