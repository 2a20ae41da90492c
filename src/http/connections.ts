// Which origins have an open connection, each numbered when it opened, fed by the pool's
// connect and disconnect events. It lets the client tell a request written on a socket that was
// already open (reused keep-alive) from one written on a socket opened for it: only the first
// kind may fail because the server closed an idle connection just as the request went out. An
// origin may hold several sockets (nodes behind one gateway): a request went out on one open
// before it when one was open as it began and none opened since.
import type { Dispatcher } from 'undici';

const originOf = (o: unknown): string => (o instanceof URL ? o.origin : String(o));

/** One log per pool, shared by the clients on it (so many clients on one pool add one listener pair). */
const logs = new WeakMap<Dispatcher, ConnectionLog>();

/** One origin's entry in a log: the number of its newest connection, undefined when none is open. */
export interface OriginConnection {
  current: number | undefined;
  /** Connections open now. */
  open: number;
}

export class ConnectionLog {
  private seq = 0;
  /** Kept per origin once seen (the origins a config names), so a caller may hold its entry. */
  private readonly byOrigin = new Map<string, OriginConnection>();
  private users = 0;

  private readonly onConnect = (origin: unknown) => {
    const e = this.entry(originOf(origin));
    e.current = ++this.seq;
    e.open++;
  };
  private readonly onDisconnect = (origin: unknown) => {
    const e = this.byOrigin.get(originOf(origin));
    if (!e || e.open === 0) return;
    if (--e.open === 0) e.current = undefined;
  };

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
    // Entries stay (senders may hold them) and say "none open" until a client listens again.
    for (const e of this.byOrigin.values()) {
      e.current = undefined;
      e.open = 0;
    }
  }

  /**
   * The origin's entry, kept up to date as connections open and close: a sender that keeps it
   * reads it per request without a lookup in a table of every origin (10,000 nodes: a cache miss each).
   */
  entry(origin: string): OriginConnection {
    let e = this.byOrigin.get(origin);
    if (!e) this.byOrigin.set(origin, (e = { current: undefined, open: 0 }));
    return e;
  }
}
