import { describe, expect, it } from 'vitest';
import { EventStreamError, readEventStream } from './event-stream.ts';

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
    for await (const e of readEventStream('/x', { lastEventId: '5', fetch: fetcher })) seen.push(e);
    expect(seen).toEqual([
      { event: 'summary', data: '{"a":1}', id: '7' },
      { event: 'message', data: 'line one\nline two', id: '7' },
    ]);
    expect(headers?.get('Last-Event-ID')).toBe('5');
    expect(headers?.get('X-Requested-With')).toBe('proplens');
  });

  it('throws the answer’s status when the stream is refused', async () => {
    const it = readEventStream('/x', { fetch: streamOf([], 404) });
    await expect(it.next()).rejects.toBeInstanceOf(EventStreamError);
  });
});
