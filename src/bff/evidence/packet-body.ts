import { PacketTorn } from './packet.ts';

/*
 * The evidence packet as an answer's body (routes/review-evidence.ts): handed over at the reader's pace, held to a
 * pace, and fed from the export routes' bodies (ADR 014, issue 26 addendum).
 */

/**
 * A packet whose reader takes less than PACKET_PACE_BYTES (1 MB, or the rest of the packet) in a minute
 * (PACKET_PACE_MS) of the time the packet waits on it is cut, and its place freed: about 17 KB/s, which a
 * 100,000-row review's 8 MB packet passes in 8 minutes. The time the server takes to make a chunk the reader
 * has asked for is not the reader's, and does not count.
 */
export const PACKET_PACE_MS = 60_000;
export const PACKET_PACE_BYTES = 1024 * 1024;
/** A packet is handed to its reader this many bytes at a time at the most. */
const PACKET_CHUNK = 64 * 1024;

/**
 * The packet as a body read at the reader's pace: a chunk of the ZIP made when the reader takes the last one,
 * handed over PACKET_CHUNK bytes at a time (a slice's deflated output can be hundreds of kilobytes, and the next
 * read waits for what was handed over to drain). Cut when a file fails, and when its reader takes less than
 * PACKET_PACE_BYTES in a PACKET_PACE_MS of its own time, from the start (an answer nobody reads, as a HEAD's
 * body, would otherwise hold its place among the packets being built as long as its connection lasts, and one
 * read a trickle at a time, for hours). `ended` is called once, however it ends.
 */
export function packetBody(
  chunks: AsyncGenerator<Uint8Array, unknown>,
  ended: () => void,
  log: { failed: (err: Error) => void; torn: () => void },
): ReadableStream<Uint8Array> {
  let done = false;
  let pending: Uint8Array | null = null;
  let taken = 0;
  // A chunk the reader asked for is being made: the seconds of that are the server's.
  let making = false;
  let pace: ReturnType<typeof setInterval> | undefined;
  const end = () => {
    clearInterval(pace);
    if (done) return;
    done = true;
    ended();
  };
  const give = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
    pending = bytes.length > PACKET_CHUNK ? bytes.subarray(PACKET_CHUNK) : null;
    const part = pending ? bytes.subarray(0, PACKET_CHUNK) : bytes;
    taken += part.length;
    controller.enqueue(part);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Counted in whole seconds of the reader's time (a timer a second, as fake timers in tests run it).
        let waited = 0;
        let before = 0;
        pace = setInterval(() => {
          if (making || ++waited * 1_000 < PACKET_PACE_MS) return;
          waited = 0;
          if (taken - before >= PACKET_PACE_BYTES) {
            before = taken;
            return;
          }
          controller.error(new Error('the reader took less of the evidence packet than it must in a minute'));
          void chunks.return(undefined).catch(() => {});
          end();
        }, 1_000);
        pace.unref?.();
      },
      async pull(controller) {
        if (pending) return give(controller, pending);
        making = true;
        try {
          const next = await chunks.next();
          making = false;
          // Cut or cancelled while this chunk was made: nothing to hand over.
          if (done) return;
          if (next.done) {
            controller.close();
            end();
            return;
          }
          give(controller, next.value);
        } catch (err) {
          making = false;
          if (done) return;
          if (err instanceof PacketTorn) log.torn();
          else log.failed(err as Error);
          controller.error(err);
          end();
        }
      },
      async cancel() {
        end();
        await chunks.return(undefined).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/** A body's chunks; its reads stop (the stream cancelled) when the chunks are no longer wanted. */
export async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The JSON export's review facts, read from its head as it passes into the packet: the export writes them first,
 * on the line before its columns (review-export.ts jsonText), so the packet never holds the export whole.
 */
export class JsonHead {
  #text = '';
  #review: Record<string, unknown> | null = null;

  async *tap(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const decoder = new TextDecoder();
    for await (const chunk of chunks) {
      if (this.#review === null) {
        this.#text += decoder.decode(chunk, { stream: true });
        const end = this.#text.indexOf(COLUMNS_LINE);
        if (end >= 0) this.#review = (JSON.parse(`${this.#text.slice(0, end)}}`) as ReviewLine).review;
        else if (this.#text.length > HEAD_MAX)
          throw new Error('the JSON export does not start with its review');
      }
      yield chunk;
    }
  }

  review(): Record<string, unknown> {
    if (this.#review === null) throw new Error('the JSON export does not start with its review');
    return this.#review;
  }
}

/** Where the JSON export's review line ends: `{"review":{…},` then this. */
const COLUMNS_LINE = ',\n"columns":';
/** The review line is a few kilobytes (a name, keys, a sign-off's reason); past this, the export is not one. */
const HEAD_MAX = 1 << 20;
type ReviewLine = { review: Record<string, unknown> };
