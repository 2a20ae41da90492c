// Reads at most `limit` bytes of a response body and always finishes with the stream, so the
// connection is either reused (fully read) or closed (too large or failed), never left hanging.
import type { Readable } from 'node:stream';

export async function readBounded(body: Readable, limit: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      const room = limit - size;
      if (buf.length > room) {
        chunks.push(buf.subarray(0, room));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
  } finally {
    // Leaving the loop early (cap, error) leaves the rest unread: destroy to close the connection.
    if (!body.readableEnded) body.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

/** Discards a body we do not want (redirects), without reading an unbounded amount. */
export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}
