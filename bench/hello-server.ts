/**
 * The floor of a Node server on this machine (docs/decisions/005-lean-hot-path.md): the bytes of one cached
 * resolve answer (HELLO_BODY) with the BFF's headers, answered to every request and nothing else done. `node`
 * is node:http alone; `hono` is the BFF's own stack (Hono behind @hono/node-server's listener, the security
 * headers set on the Node response as server.ts does). What the BFF's cached hit costs beyond `hono` is its own
 * logic (session, cache, audit entry, log, metrics); what `node` costs beyond nginx is Node's, which no change in
 * the BFF can win back.
 *
 *   HELLO_BODY='{...}' node bench/hello-server.ts node|hono   prints "hello on http://127.0.0.1:PORT"
 */
import { createServer, type RequestListener } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { SECURITY_HEADERS } from '../src/bff/middleware/security-headers.ts';

const body = process.env.HELLO_BODY ?? '{}';
const mode = process.argv[2];
if (mode !== 'node' && mode !== 'hono') throw new Error('usage: hello-server.ts node|hono');

let listener: RequestListener;
if (mode === 'node') {
  const headers = Object.fromEntries([...SECURITY_HEADERS, ['Content-Type', 'application/json']]);
  listener = (_req, res) => res.writeHead(200, headers).end(body);
} else {
  const app = new Hono();
  app.get('*', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
  const hono = getRequestListener(app.fetch);
  listener = (req, res) => {
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    return hono(req, res);
  };
}
const server = createServer(listener);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`hello on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
});
// A clean exit on the bench's SIGTERM, so `--cpu-prof` (BENCH_NODE_ARGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
