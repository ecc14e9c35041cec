import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { FollowerData, FollowerReply, FollowerRequest } from './follower-thread.ts';

/**
 * The trail's follower thread as the main thread holds it (ADR 016): `follow` asks for a catch-up and resolves
 * with how many entries it passed over. A thread that dies on its own fails what it was asked and says so once
 * (`onGone`); the trail then follows on the main thread, as before the thread.
 */
export class FollowerThread {
  readonly #worker: Worker;
  readonly #asked = new Map<number, { done: (n: number) => void; failed: (err: Error) => void }>();
  #next = 0;
  #gone: Error | null = null;
  #stopping = false;

  constructor(data: FollowerData, logger: Logger, onGone: () => void) {
    this.#worker = spawnFollower(data);
    this.#worker.on('message', (reply: FollowerReply) => {
      const asked = this.#asked.get(reply.id);
      this.#asked.delete(reply.id);
      if (reply.type === 'followed') asked?.done(reply.passed);
      else asked?.failed(new Error(reply.message));
    });
    const gone = (err: Error) => {
      if (this.#gone) return;
      this.#gone = err;
      for (const { failed } of this.#asked.values()) failed(err);
      this.#asked.clear();
      if (this.#stopping) return;
      logger.warn(
        { err: { message: err.message } },
        'audit follower thread stopped; following on the main thread',
      );
      onGone();
    };
    this.#worker.on('error', gone);
    this.#worker.on('exit', (code) => gone(new Error(`the follower thread exited (${code})`)));
  }

  follow(): Promise<number> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#next++;
    return new Promise<number>((done, failed) => {
      this.#asked.set(id, { done, failed });
      this.#worker.postMessage({ type: 'follow', id } satisfies FollowerRequest);
    });
  }

  /** Ends the thread after the pass under way (its transaction commits or rolls back whole). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#gone) return;
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.postMessage({ type: 'stop' } satisfies FollowerRequest);
    await exited;
  }
}

/**
 * The compiled server's thread is its own file beside it (scripts/build.ts: dist-server/audit-follower.js). From
 * the sources (tests, `npm run dev`), the TypeScript file, loaded through tsx as the main thread was.
 */
function spawnFollower(data: FollowerData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./audit-follower.js', here), { workerData: data });
  // tsx's ES module entry (a require() would find its CommonJS one, which cannot register the ESM hooks).
  const tsx = pathToFileURL(
    join(dirname(createRequire(here).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  const entry = new URL('./follower-thread.ts', here).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true, workerData: data },
  );
}
