import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { SEARCH_INDEX_FILE } from '../stores/audit/search-index.ts';
import { auditEntry } from '../test-support/audit-entry.ts';
import { tempDatabaseEach } from '../test-support/temp-database.ts';
import { createAuditTrail, WAL_BACKSTOP_PAGES } from './audit-trail.ts';

/*
 * The Activity filter's SQLite indexes live in a file of their own and are filled by a thread of their own
 * (ADR 016): what a reviewer relies on is that every entry is found by its text and its property, from either
 * path, whoever follows, and that retention's deletes leave the index file too.
 */

const temp = tempDatabaseEach('follower');

/** The audit trail on the database as it is now (a test may reopen it). */
const trailOn = () =>
  createAuditTrail({ database: temp.database, logger: createLogger('silent'), retentionDays: 0 });
const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
  Number((await query.execute(temp.database.db)).rows[0]?.n);
const textHeld = (text: string) =>
  count(
    sql<{ n: number }>`select count(*) as n from idx.audit_search where audit_search match ${`"${text}"`}`,
  );
const propertiesHeld = (accountId: string) =>
  count(sql<{ n: number }>`select count(*) as n from idx.audit_property_ids where account_id = ${accountId}`);

/**
 * The write-ahead log as its index (the `-shm` file, https://sqlite.org/walformat.html) states it: frames in the
 * log (the header's mxFrame) and how many of them a checkpoint has copied into the database (nBackfill).
 */
function logState(dir: string): { frames: number; copied: number } {
  const shm = readFileSync(join(dir, 'proplens.db-shm'));
  return { frames: shm.readUInt32LE(16), copied: shm.readUInt32LE(96) };
}

describe('the audit trail’s follower', () => {
  it('keeps the indexes in a file beside the database, not in it', async () => {
    expect(existsSync(join(temp.dir, SEARCH_INDEX_FILE))).toBe(true);
    const { rows } = await sql<{ name: string }>`select name from main.sqlite_master
      where name like 'audit_search%' or name like 'audit_property%'`.execute(temp.database.db);
    expect(rows).toEqual([]);
  });

  it('follows in a thread of its own once started, the main thread’s connection left to the answers', async () => {
    const trail = trailOn();
    const onMain = vi.spyOn(trail.store, 'follow');
    const accountId = `acct-${randomUUID()}`;
    // More than a pass: the thread's catch-up goes on until it has every entry.
    const entries = Array.from({ length: 2_500 }, (_, i) =>
      auditEntry({ account_id: accountId, query: `${i} Thread Way`, property_id: `pt_${i % 3}` }),
    );
    await trail.store.append(entries);
    trail.start();
    try {
      expect(await trail.follow()).toBe(2_500);
      expect(onMain).not.toHaveBeenCalled();
      expect(await textHeld('thread way')).toBe(2_500);
      expect(await propertiesHeld(accountId)).toBe(2_500);
      expect(await trail.store.page(accountId, { text: '12 thread' }, null, 100)).toHaveLength(
        entries.filter((e) => e.query?.includes('12 Thread')).length,
      );
      expect(await trail.store.page(accountId, { propertyId: 'pt_1' }, null, 1_000)).toHaveLength(833);
    } finally {
      await trail.stop();
    }
    // Stopped: the thread is gone, and a catch-up asked for now is the main thread's.
    await trail.store.append([auditEntry({ account_id: accountId, query: 'After Thread Way' })]);
    expect(await trail.follow()).toBe(1);
    expect(onMain).toHaveBeenCalled();
    expect(await textHeld('thread way')).toBe(2_501);
  });

  it('never makes an answer’s commit fail: group commits raced against the thread’s passes', async () => {
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    trail.start();
    try {
      let failed = 0;
      let passes = 0;
      for (let round = 0; round < 60; round++) {
        // A group commit's worth of lookups, while the thread indexes what the rounds before committed.
        const following = trail.follow().then((n) => {
          passes += n > 0 ? 1 : 0;
        });
        const committed = await Promise.allSettled(
          Array.from({ length: 200 }, (_, i) =>
            trail.writer.record(auditEntry({ account_id: accountId, query: `${round}-${i} Race Rd` })),
          ),
        );
        failed += committed.filter((c) => c.status === 'rejected').length;
        await following;
      }
      expect(failed).toBe(0);
      expect(passes).toBeGreaterThan(10);
      await trail.follow();
      expect(await textHeld('race rd')).toBe(60 * 200);
    } finally {
      await trail.stop();
    }
  });

  it('takes out of the index file what retention removed from the trail, a batch of ids a pass', async () => {
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    const old = 24_000;
    const now = Date.now();
    await trail.store.append(
      Array.from({ length: 25_000 }, (_, i) =>
        auditEntry({
          at: i < old ? now - 1e9 : now,
          account_id: accountId,
          query: `${i} Prune St`,
          property_id: 'p1',
        }),
      ),
    );
    trail.start();
    try {
      await trail.follow();
      expect([await textHeld('prune st'), await propertiesHeld(accountId)]).toEqual([25_000, 25_000]);
      expect(await trail.store.deleteOlderThan(now - 1)).toBe(old);
      // The filters never show what went, the index holding it or not.
      expect(await trail.store.page(accountId, { text: 'prune st' }, null, 2_000)).toHaveLength(1_000);
      expect(await trail.store.page(accountId, { propertyId: 'p1' }, null, 2_000)).toHaveLength(1_000);
      // Each pass takes out up to 10,000 ids.
      await trail.follow();
      expect(await textHeld('prune st')).toBe(15_000);
      await trail.follow();
      await trail.follow();
      expect([await textHeld('prune st'), await propertiesHeld(accountId)]).toEqual([1_000, 1_000]);
    } finally {
      await trail.stop();
    }
  });

  it('ends a catch-up at a stop after the pass under way, not after the whole backlog', async () => {
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    await trail.store.append(
      Array.from({ length: 30_000 }, (_, i) =>
        auditEntry({ account_id: accountId, query: `${i} Backlog Rd` }),
      ),
    );
    trail.start();
    const following = trail.follow();
    await trail.stop();
    const passed = await following.catch(() => 0);
    expect(passed).toBeLessThan(30_000);
    expect(await textHeld('backlog rd')).toBeLessThan(30_000);
    // What is left is the next start's (or, here, the next catch-up's).
    const held = await textHeld('backlog rd');
    expect(await trail.follow()).toBe(30_000 - held);
    expect(await textHeld('backlog rd')).toBe(30_000);
  });

  it('keeps the database’s log bounded while answers commit back to back, the thread copying it back', async () => {
    const trail = trailOn();
    const sqlite = temp.database.sqlite as NonNullable<Database['sqlite']>;
    const autocheckpoint = () => sqlite.pragma('wal_autocheckpoint', { simple: true });
    expect(autocheckpoint()).toBe(1000);
    trail.start();
    try {
      // The main connection copies back only at the backstop; the thread does the rest.
      expect(autocheckpoint()).toBe(WAL_BACKSTOP_PAGES);
      // Group commits with no pause between them, as answers make them under load: four times the backstop's
      // pages. The thread's copies alone never let the log start over then (a commit always lands while one
      // runs), so without the backstop the log holds every page written. With it, the log may pass the backstop
      // by what is committed while the thread's copy or pass holds the log (the main connection's copy then
      // stops short, and is tried again at the next commit): 10,767 pages once, in CI.
      const accountId = `acct-${randomUUID()}`;
      const group = Array.from({ length: 16 }, (_, i) =>
        auditEntry({ account_id: accountId, query: `${i} Log Ln` }),
      );
      let most = 0;
      let written = 0;
      while (written < 4 * WAL_BACKSTOP_PAGES) {
        const before = logState(temp.dir).frames;
        await trail.store.append(group);
        const after = logState(temp.dir).frames;
        written += after >= before ? after - before : after;
        most = Math.max(most, after);
      }
      expect(most).toBeLessThanOrEqual(2 * WAL_BACKSTOP_PAGES);
      // Once the answers pause, the thread has copied every page back (every 200 ms at the most).
      await vi.waitFor(
        () => {
          const { frames, copied } = logState(temp.dir);
          expect(copied).toBe(frames);
        },
        { timeout: 5_000, interval: 20 },
      );
    } finally {
      await trail.stop();
    }
    // The thread gone, the main connection checkpoints as SQLite does by default.
    expect(autocheckpoint()).toBe(1000);
  });

  it('starts over when the database is restored from a backup: never another trail’s entries', async () => {
    const notices: string[] = [];
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    const entry = (query: string, property: string) =>
      auditEntry({ account_id: accountId, query, property_id: property });
    await trail.store.append(Array.from({ length: 50 }, (_, i) => entry(`${i} Backup Blvd`, 'p_backup')));
    await trail.follow();
    await temp.database.close();
    const backup = mkdtempSync(join(tmpdir(), 'proplens-backup-'));
    for (const f of readdirSync(temp.dir).filter((f) => f.startsWith('proplens.db')))
      copyFileSync(join(temp.dir, f), join(backup, f));
    // After the backup: entries the index follows.
    await temp.reopen();
    const later = trailOn();
    await later.store.append(Array.from({ length: 50 }, (_, i) => entry(`${i} Secret Ave`, 'p_secret')));
    await later.follow();
    await temp.database.close();
    // The database restored from the backup (the index file left as it was), and new lookups made.
    for (const f of readdirSync(temp.dir).filter((f) => f.startsWith('proplens.db')))
      rmSync(join(temp.dir, f));
    for (const f of readdirSync(backup)) copyFileSync(join(backup, f), join(temp.dir, f));
    rmSync(backup, { recursive: true, force: true });
    await temp.reopen({ notice: (m) => notices.push(m) });
    expect(notices).toEqual([expect.stringContaining('indexed another trail')]);
    const restored = trailOn();
    await restored.store.append(Array.from({ length: 50 }, (_, i) => entry(`${i} New Lane`, 'p_new')));
    const found = async (filters: { text?: string; propertyId?: string }) =>
      (await restored.store.page(accountId, filters, null, 1_000)).length;
    for (const pass of ['before the follower', 'after it']) {
      expect([pass, await found({ text: 'secret ave' }), await found({ propertyId: 'p_secret' })]).toEqual([
        pass,
        0,
        0,
      ]);
      expect([pass, await found({ text: 'new lane' }), await found({ propertyId: 'p_new' })]).toEqual([
        pass,
        50,
        50,
      ]);
      expect([pass, await found({ text: 'backup blvd' })]).toEqual([pass, 50]);
      await restored.follow();
    }
    expect(await textHeld('new lane')).toBe(50);
    expect(await textHeld('secret ave')).toBe(0);
  });

  it('moves an index file it cannot read aside and makes it again, saying so: the server starts', async () => {
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    await trail.store.append(
      Array.from({ length: 20 }, (_, i) => auditEntry({ account_id: accountId, query: `${i} Broken Way` })),
    );
    await temp.database.close();
    for (const suffix of ['-wal', '-shm'])
      rmSync(join(temp.dir, SEARCH_INDEX_FILE + suffix), { force: true });
    writeFileSync(
      join(temp.dir, SEARCH_INDEX_FILE),
      'not a database at all, but long enough to be read as one'.repeat(100),
    );
    const notices: string[] = [];
    await temp.reopen({ notice: (m) => notices.push(m) });
    expect(notices).toEqual([
      expect.stringMatching(/could not be read \(SQLITE_NOTADB\): moved to .*unreadable-/),
    ]);
    expect(
      readdirSync(temp.dir).filter((f) => f.startsWith(`${SEARCH_INDEX_FILE}.unreadable-`)),
    ).toHaveLength(1);
    const again = trailOn();
    expect(await again.follow()).toBe(20);
    expect(await again.store.page(accountId, { text: 'broken way' }, null, 100)).toHaveLength(20);
  });

  it('makes the index file again from the trail when it is gone', async () => {
    const trail = trailOn();
    const accountId = `acct-${randomUUID()}`;
    await trail.store.append(
      Array.from({ length: 300 }, (_, i) => auditEntry({ account_id: accountId, query: `${i} Lost Ln` })),
    );
    await trail.follow();
    await temp.database.close();
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(join(temp.dir, SEARCH_INDEX_FILE + suffix), { force: true });
    await temp.reopen();
    const again = trailOn();
    // Found from the trail itself before the follower has been by, and from the index after.
    expect(await again.store.page(accountId, { text: 'lost ln' }, null, 1_000)).toHaveLength(300);
    expect(await textHeld('lost ln')).toBe(0);
    expect(await again.follow()).toBe(300);
    expect(await textHeld('lost ln')).toBe(300);
    expect(await again.store.page(accountId, { text: 'lost ln' }, null, 1_000)).toHaveLength(300);
  });
});
