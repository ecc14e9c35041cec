import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { catchUp, FOLLOW_BATCH, followPass, sqliteExecute } from '../stores/audit/search-index.ts';

/*
 * The audit trail's follower, in a worker thread of its own (ADR 016): its own connection to the database, the
 * index file attached, so indexing the trail for the Activity filter never holds the main thread, nor the
 * database's write lock, which every lookup's answer waits for (its transactions write the index file only).
 * It also copies the database's log back into its file (checkpoint, below). The main thread says when to follow
 * (audit-trail.ts: every second, and when asked); each `follow` is answered with how many entries were passed
 * over, once caught up, or with why not.
 */

export interface FollowerData {
  database: string;
  searchIndex: string;
}

export type FollowerRequest = { type: 'follow'; id: number } | { type: 'stop' };
export type FollowerReply =
  | { type: 'followed'; id: number; passed: number }
  | { type: 'failed'; id: number; message: string };

const port = parentPort;
if (!port) throw new Error('follower-thread.ts runs as a worker thread');
const { database, searchIndex } = workerData as FollowerData;
const db = new BetterSqlite3(database);
db.pragma('busy_timeout = 5000');
// The main thread attached (and, where needed, made) the file before it started this thread.
db.prepare('attach database ? as idx').run(searchIndex);
// As the main connection has it (WAL persists in the file; this is per connection): no sync at each commit.
db.pragma('idx.synchronous = NORMAL');

const execute = sqliteExecute(db);

/**
 * One pass in a transaction of its own: rolled back whole when it fails. Deferred, never `begin immediate`,
 * which would take the write lock of every attached file, the database's own included: the pass only reads the
 * trail and writes the index file, whose one writer is this thread.
 */
async function pass(): Promise<number> {
  db.exec('begin');
  try {
    const n = await followPass(execute, FOLLOW_BATCH);
    db.exec('commit');
    return n;
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    throw err;
  } finally {
    checkpoint();
  }
}

/**
 * The database's write-ahead log is copied back into its file here, mostly, not on the main thread (ADR 016's
 * addendum): SQLite's own checkpoint runs on the connection that committed, so a group of lookups' answers
 * waited for the copy and its fsync. PASSIVE, as SQLite's: it takes no lock a writer waits on, and copies what
 * no open read still needs. It cannot let the log start over while the main thread goes on committing (a log
 * starts over only when every frame was copied before the next write began), so the main connection keeps a
 * checkpoint of its own at WAL_BACKSTOP_PAGES (audit-trail.ts): by then this one has copied all but the last
 * moments, and the main thread's copies only those. Every 200 ms at the most, after a pass and between.
 */
const CHECKPOINT_MS = 200;
let checkpointed = 0;
function checkpoint(): void {
  if (db.inTransaction || Date.now() - checkpointed < CHECKPOINT_MS) return;
  checkpointed = Date.now();
  try {
    db.pragma('main.wal_checkpoint(PASSIVE)');
  } catch {
    // A pass's result stands whatever became of the copy; the main connection's backstop still bounds the log.
  }
}
/** Set by a stop: the catch-up under way ends after its pass, and none starts. */
let stopping = false;

let work: Promise<unknown> = Promise.resolve();
// Between passes too (never inside one: each waits for the work before it).
const checkpoints = setInterval(() => {
  work = work.then(checkpoint);
}, CHECKPOINT_MS);
port.on('message', (request: FollowerRequest) => {
  if (request.type === 'stop') {
    stopping = true;
    clearInterval(checkpoints);
    work = work.then(() => {
      db.close();
      port.close();
    });
    return;
  }
  work = work.then(() =>
    catchUp(pass, () => stopping).then(
      (passed) => port.postMessage({ type: 'followed', id: request.id, passed } satisfies FollowerReply),
      (err: Error) =>
        port.postMessage({ type: 'failed', id: request.id, message: err.message } satisfies FollowerReply),
    ),
  );
});
