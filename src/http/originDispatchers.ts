// An origin's Client or Pool that hands its connection events (connect, disconnect,
// connectionError, drain) straight to the pool that made it, not to listeners of its own: four
// listeners and their closures on each cost ~0.5 KB a node (an EventEmitter's table of events is a
// dictionary). Other events reach its listeners as before.
import { Client, Pool } from '../deps/undici.js';

export type ConnectionEvent = 'connect' | 'disconnect' | 'connectionError' | 'drain';
const CONNECTION_EVENTS = new Set<string | symbol>(['connect', 'disconnect', 'connectionError', 'drain']);

/** Where an origin's dispatcher reports its connection events, with the entry it was given. */
export interface EventSink {
  onOriginEvent(entry: object, event: ConnectionEvent, args: unknown[]): void;
}

type Emit = (event: string | symbol, ...args: unknown[]) => boolean;

/** Sends an origin's connection events to its sink; true when it took the event. */
function report(d: { sink?: EventSink; entry?: object }, event: string | symbol, args: unknown[]): boolean {
  if (!d.sink || !CONNECTION_EVENTS.has(event)) return false;
  d.sink.onOriginEvent(d.entry!, event as ConnectionEvent, args);
  return true;
}

export class OriginClient extends Client {
  sink?: EventSink;
  entry?: object;
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    return report(this, event, args) || (super.emit as Emit).call(this, event, ...args);
  }
}

export class OriginPool extends Pool {
  sink?: EventSink;
  entry?: object;
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    return report(this, event, args) || (super.emit as Emit).call(this, event, ...args);
  }
}
