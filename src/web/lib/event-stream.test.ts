import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, onSessionEnded } from './api-client.ts';
import { readEventStream } from './event-stream.ts';

afterEach(() => vi.unstubAllGlobals());

const streamOf = (chunks: string[], status = 200): typeof fetch =>
  (async () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
          c.close();
        },
      }),
      { status, headers: { 'content-type': 'text/event-stream' } },
    )) as unknown as typeof fetch;

describe('readEventStream', () => {
  it('reads events split anywhere across chunks, with CRLF, comments and multi-line data', async () => {
    const seen: unknown[] = [];
    let headers: Headers | undefined;
    const fetcher = (async (_path: string, init: RequestInit) => {
      headers = new Headers(init.headers);
      return streamOf([
        ': keep-alive\r\nevent: summ',
        'ary\r\ndata: {"a":1}\r',
        '\nid: 7\r\n\r\ndata: line one\ndata: line two\n\n',
      ])('/x');
    }) as unknown as typeof fetch;
    vi.stubGlobal('fetch', fetcher);
    for await (const e of readEventStream('/x', { lastEventId: '5' })) seen.push(e);
    expect(seen).toEqual([
      { event: 'summary', data: '{"a":1}', id: '7' },
      { event: 'message', data: 'line one\nline two', id: '7' },
    ]);
    expect(headers?.get('Last-Event-ID')).toBe('5');
    expect(headers?.get('X-Requested-With')).toBe('proplens');
  });

  it('throws the answer’s status when the stream is refused', async () => {
    vi.stubGlobal('fetch', streamOf([], 404));
    const it = readEventStream('/x');
    await expect(it.next()).rejects.toMatchObject({ status: 404 });
  });

  it('reports an ended session where every other call does', async () => {
    const ended = vi.fn();
    const stop = onSessionEnded(ended);
    vi.stubGlobal(
      'fetch',
      async () =>
        new Response(JSON.stringify({ error: { code: 'unauthenticated', message: 'Sign in again.' } }), {
          status: 401,
          headers: { 'content-type': 'application/json' },
        }),
    );
    await expect(readEventStream('/x').next()).rejects.toBeInstanceOf(ApiRequestError);
    expect(ended).toHaveBeenCalledTimes(1);
    stop();
  });
});
