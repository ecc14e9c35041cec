/**
 * The second anchor of the proxy comparison (docs/decisions/005-lean-hot-path.md): the least a Node proxy can
 * do here. `node:http` in, undici's Pool out (kept-alive sockets, as the BFF's transport), the answer parsed
 * and wrapped as the BFF wraps it, and nothing else: no session, cache, scheduler, log or headers. What the
 * BFF costs beyond this is its own logic; what this costs beyond nginx is Node's.
 *
 *   node bench/node-proxy.ts <upstream URL> <api key>   prints "proxy on http://127.0.0.1:PORT"
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [upstream, key] = process.argv.slice(2);
if (!upstream || !key) throw new Error('usage: node-proxy.ts <upstream URL> <api key>');
const pool = new Pool(upstream, { connections: 128 });
const authorization = `Bearer ${key}`;

const server = createServer(async (req, res) => {
  try {
    const address = new URL(req.url ?? '/', 'http://proxy').searchParams.get('address') ?? '';
    const answer = await pool.request({
      method: 'GET',
      path: `/properties/resolve?address=${encodeURIComponent(address)}`,
      headers: { authorization, accept: 'application/json' },
    });
    const text = await answer.body.text();
    const body = JSON.stringify({ property: JSON.parse(text), rateLimit: null, match: null });
    res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
    res.end(body);
  } catch {
    res.writeHead(502).end();
  }
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`proxy on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
});
// A clean exit on the bench's SIGTERM, so `--cpu-prof` (BENCH_NODE_ARGS) writes its profile.
process.on('SIGTERM', () => process.exit(0));
