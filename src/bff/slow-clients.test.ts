import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, SERVER_LIMITS } from './server.ts';

/*
 * A client that sends its headers or body slowly is cut when README says (headers within 10 s, a whole
 * request within 30 s), not up to 30 s later when Node would check by itself. Over real sockets, with the
 * production checking interval and the timeouts scaled down so the test takes a second, not ten.
 */
const limits = { ...SERVER_LIMITS, headersTimeoutMs: 400, requestTimeoutMs: 800 };
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

async function start(): Promise<number> {
  // Reads the whole body before answering, as every route that takes one does.
  server = await listen(async (req) => new Response(await req.text()), '127.0.0.1', 0, false, limits);
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Opens a socket, writes `first`, and resolves with how long the server kept it open after that. */
function cutAfter(port: number, first: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const t = performance.now();
      socket.write(first);
      let answer = '';
      socket.on('data', (d) => {
        answer += d.toString();
      });
      socket.on('close', () => resolve({ ms: performance.now() - t, answer }));
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}

describe('slow clients', () => {
  it('checks the timeouts every second, so a client is cut within a second of its deadline', () => {
    expect(SERVER_LIMITS).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      checkingIntervalMs: 1_000,
    });
  });

  it('are cut when their headers do not arrive in time (408)', async () => {
    const port = await start();
    const { ms, answer } = await cutAfter(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(ms).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    expect(ms).toBeLessThan(limits.headersTimeoutMs + limits.checkingIntervalMs + 500);
  });

  it('are cut when their body does not arrive in time (408)', async () => {
    const port = await start();
    const { ms, answer } = await cutAfter(
      port,
      'POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a',
    );
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(ms).toBeLessThan(limits.requestTimeoutMs + limits.checkingIntervalMs + 500);
  });
});
