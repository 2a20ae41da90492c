// A /metrics body rendered in steps into pooled chunks and streamed (chunkPool.ts,
// chunkWriter.ts): plain, each full chunk goes to the client; gzip, to the thread pool, and its
// compressed form to the client in order. The render pauses between steps only for compression
// to free a chunk, never for a client: a slow one holds its own chunks and the render takes
// fresh ones. Whether the body is streamed is known once it outgrows its first chunk; a body that
// does not is answered whole, with its length.
import { BodyStream } from './bodyStream.js';
import type { TextOut } from './byteWriter.js';
import type { ChunkPool } from './chunkPool.js';
import { ChunkWriter } from './chunkWriter.js';
import { GzipStream } from './gzip.js';

export type StreamHead =
  /** The whole body (compressed with gzip), sent with its length. */
  | { whole: Buffer; stream?: undefined }
  /** The body, larger than a chunk, streamed. */
  | { whole?: undefined; stream: BodyStream };

const nothing = () => undefined;

/**
 * Writes the body `steps` make. `head` is called once, as soon as the reply's form is known;
 * settles when every byte was handed on (written and compressed, not sent). A failure before
 * `head` is called rejects; after it, it also breaks the stream.
 */
export async function streamRender(
  pool: ChunkPool,
  gzip: boolean,
  steps: (out: TextOut) => Iterable<unknown>,
  head: (h: StreamHead) => void,
  /** Called when the render waits for its client (see ChunkWriter). */
  onClientWait?: () => void,
): Promise<void> {
  const body = new BodyStream();
  const gz = gzip ? new GzipStream((z) => body.write(z, nothing)) : undefined;
  const out = new ChunkWriter(pool, gz ?? { take: (bytes, done) => body.write(bytes, done) }, gzip, onClientWait);
  let streaming = false;
  try {
    for (const _ of steps(out)) {
      if (!streaming && out.spilled > 0) {
        streaming = true;
        head({ stream: body });
      }
      const wait = out.room();
      if (wait) await wait;
    }
    out.end();
    if (!streaming && out.spilled > 0) {
      streaming = true;
      head({ stream: body });
    }
    await gz?.finish();
    if (!streaming) head({ whole: body.whole() });
    body.end();
  } catch (err) {
    body.fail(err instanceof Error ? err : new Error(String(err)));
    out.end(); // what was written goes to a failed body, which gives the chunks back at once
    throw err;
  }
}

const EMPTY = Buffer.alloc(0);

/** A streamed render's answer (RenderedMetrics): the whole body as a whole render gives it, or the stream. */
export function streamedAnswer(contentType: string, gzip: boolean, h: StreamHead) {
  const release = nothing;
  if (h.stream) return { contentType, body: EMPTY, stream: h.stream, release };
  if (gzip) return { contentType, body: EMPTY, gzipped: Promise.resolve(h.whole), release };
  return { contentType, body: h.whole, release };
}
