// How the exporter's server lets go of connections that do not use it: one that never sends a
// byte is closed within the header timeout, and a keep-alive connection that went idle is closed
// without resetting a request that had already reached it.
import type http from 'node:http';
import type https from 'node:https';
import type * as net from 'node:net';

/** Both policies below, on one server. */
export function closeIdleConnections(server: http.Server | https.Server, headersTimeoutMs: number): void {
  closeIdleAfterPendingReads(server);
  closeSilentConnections(server, headersTimeoutMs);
}

/**
 * Node runs expired timers before it reads sockets. After the event loop stalled (a slow render,
 * hostile nodes' answers being parsed, GC, a loaded machine) past a keep-alive connection's idle
 * deadline, a request that already arrived on it was still unread when the idle timer destroyed
 * the socket, and the kernel answers a close with unread data by a reset: the client got
 * ECONNRESET for a request it had sent in time. Handling 'timeout' here (Node then leaves the
 * socket to us) lets one turn of the loop read what arrived; the socket is closed only if
 * nothing did. A request that came in is served and Node arms the socket's timers again.
 */
function closeIdleAfterPendingReads(server: http.Server | https.Server): void {
  server.on('timeout', (socket: net.Socket) => {
    const seen = socket.bytesRead;
    // The first immediate runs after this turn's reads; the second after one more turn's, for a
    // request written by a client in this process during the first (the benchmark's scraper).
    setImmediate(() =>
      setImmediate(() => {
        if (!socket.destroyed && socket.bytesRead === seen) socket.destroy();
      }),
    );
  });
}

/**
 * A connection that never sends a byte is no request yet, so headersTimeout never sees it and
 * only the idle timeout would close it: enough of them exhaust the open-files limit. Such a
 * connection is closed within headersTimeout. Counted from the raw bytes read (TLS handshakes
 * included), so no data listener is added to the socket.
 */
function closeSilentConnections(server: http.Server | https.Server, afterMs: number): void {
  server.on('connection', (socket: net.Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, afterMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
