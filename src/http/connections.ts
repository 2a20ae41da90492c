// Which origins have an open connection, each numbered when it opened, fed by the pool's
// connect and disconnect events. It lets the client tell a request written on a socket that was
// already open (reused keep-alive) from one written on a socket opened for it: only the first
// kind may fail because the server closed an idle connection just as the request went out.
import type { Dispatcher } from 'undici';

const originOf = (o: unknown): string => (o instanceof URL ? o.origin : String(o));

export class ConnectionLog {
  private seq = 0;
  private readonly open = new Map<string, number>();

  private readonly onConnect = (origin: unknown) => void this.open.set(originOf(origin), ++this.seq);
  private readonly onDisconnect = (origin: unknown) => void this.open.delete(originOf(origin));

  constructor(private readonly dispatcher: Dispatcher) {
    dispatcher.on('connect', this.onConnect);
    dispatcher.on('disconnect', this.onDisconnect);
  }

  /** Stops listening (a shared pool outlives the clients that use it). */
  detach(): void {
    this.dispatcher.off('connect', this.onConnect);
    this.dispatcher.off('disconnect', this.onDisconnect);
  }

  /** The number of the origin's open connection, undefined when none is open. */
  current(origin: string): number | undefined {
    return this.open.get(origin);
  }
}
