// Which origins have an open connection, each numbered when it opened, fed by the pool's
// connect and disconnect events. It lets the client tell a request written on a socket that was
// already open (reused keep-alive) from one written on a socket opened for it: only the first
// kind may fail because the server closed an idle connection just as the request went out.
import type { Dispatcher } from 'undici';

const originOf = (o: unknown): string => (o instanceof URL ? o.origin : String(o));

/** One log per pool, shared by the clients on it (so many clients on one pool add one listener pair). */
const logs = new WeakMap<Dispatcher, ConnectionLog>();

export class ConnectionLog {
  private seq = 0;
  private readonly open = new Map<string, number>();
  private users = 0;

  private readonly onConnect = (origin: unknown) => void this.open.set(originOf(origin), ++this.seq);
  private readonly onDisconnect = (origin: unknown) => void this.open.delete(originOf(origin));

  private constructor(private readonly dispatcher: Dispatcher) {}

  /** The pool's log, listening while at least one client uses it; release() when done. */
  static attach(dispatcher: Dispatcher): ConnectionLog {
    let log = logs.get(dispatcher);
    if (!log) logs.set(dispatcher, (log = new ConnectionLog(dispatcher)));
    if (log.users++ === 0) {
      dispatcher.on('connect', log.onConnect);
      dispatcher.on('disconnect', log.onDisconnect);
    }
    return log;
  }

  /** A client is done with the pool; the last one stops listening (a shared pool outlives its clients). */
  release(): void {
    if (this.users === 0 || --this.users > 0) return;
    this.dispatcher.off('connect', this.onConnect);
    this.dispatcher.off('disconnect', this.onDisconnect);
    this.open.clear();
  }

  /** The number of the origin's open connection, undefined when none is open. */
  current(origin: string): number | undefined {
    return this.open.get(origin);
  }
}
