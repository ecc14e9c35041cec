import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver got it. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 for tests (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets PropLens send to it): it
 * records each request and answers as `answer` says for its path (default 204).
 */
export async function startReceiver(
  answer: (req: Received, res: ServerResponse) => void = (_r, res) => res.writeHead(204).end(),
) {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = {
        path: req.url ?? '',
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
        ),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(got);
      answer(got, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
