// The one place outbound connection pools are made, so the pool policy is decided here only.
import { Agent } from 'undici';

export interface DispatcherOptions {
  connectTimeoutMs?: number;
}

export function createDispatcher(opts: DispatcherOptions = {}): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connectTimeout: opts.connectTimeoutMs ?? 5_000,
    // A few sockets per origin: one node's five probes run side by side without queueing.
    connections: 8,
    pipelining: 1,
  });
}
