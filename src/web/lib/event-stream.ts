import { apiStream } from './api-client.ts';

/** One server-sent event. */
export interface StreamEvent {
  event: string;
  data: string;
  id: string | null;
}

/**
 * Reads a text/event-stream from the BFF (apiStream: EventSource cannot send the CSRF header), resuming from
 * `lastEventId`. Yields events until the server ends the stream or `signal` aborts; a non-2xx answer throws
 * ApiRequestError with its status and code, as every call to the BFF does.
 */
export async function* readEventStream(
  path: string,
  options: { lastEventId?: string | null; signal?: AbortSignal } = {},
): AsyncGenerator<StreamEvent> {
  const body = await apiStream(path, {
    accept: 'text/event-stream',
    ...(options.lastEventId ? { headers: { 'Last-Event-ID': options.lastEventId } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event: StreamEvent = { event: 'message', data: '', id: null };
  let hasData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let newline = buffer.search(/\r\n|\r|\n/);
      // A CR at the end of a chunk may be half of a CRLF: wait for the next chunk to tell.
      while (newline >= 0 && !(newline === buffer.length - 1 && buffer.endsWith('\r'))) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (hasData) yield { ...event, data: event.data.replace(/\n$/, '') };
          event = { event: 'message', data: '', id: event.id };
          hasData = false;
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event.event = text;
          else if (field === 'data') {
            event.data += `${text}\n`;
            hasData = true;
          } else if (field === 'id') event.id = text;
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
