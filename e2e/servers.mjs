import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

/*
 * Starts the browser tests' servers (playwright.config.ts, E2E_SERVERS: each one's port and environment) side by
 * side, and answers 200 on E2E_READY_PORT once every one answers its /healthz. Playwright starts the servers of
 * its webServer list one after another, each waiting for the last: four `npm start`s in a row were 10-17 s of
 * every run before the first test. The first server starts alone: on a fresh clone it builds the reference's
 * dataset (data/), which the others then open instead of each building its own copy at the same time.
 *
 * Playwright ends this process's group when the run ends, the servers with it; a server that exits before it is
 * ready ends this launcher, with the server's own error output above, so the run fails at once.
 */
const servers = JSON.parse(process.env.E2E_SERVERS ?? '[]');
const readyPort = Number(process.env.E2E_READY_PORT);
if (servers.length === 0 || !readyPort)
  throw new Error('E2E_SERVERS and E2E_READY_PORT are set by playwright.config.ts');

const children = [];
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1));

function start({ port, env }) {
  const child = spawn(process.execPath, ['scripts/start.js'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  child.stderr.on('data', (chunk) => process.stderr.write(`[${port}] ${chunk}`));
  let ready = false;
  child.once('exit', (code, signal) => {
    if (ready) return;
    console.error(`The e2e server on port ${port} exited (${signal ?? code}) before it answered /healthz.`);
    process.exit(1);
  });
  return (async () => {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    ready = true;
  })();
}

const [first, ...rest] = servers;
await start(first);
await Promise.all(rest.map(start));
createServer((_, res) => res.end('ready')).listen(readyPort, '127.0.0.1');
