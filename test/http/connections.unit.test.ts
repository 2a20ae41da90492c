// The connection log as the client reads it: an origin's entry follows the pool's connect and
// disconnect events, and an entry a sender holds stays the origin's across clients coming and going.
import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { ConnectionLog } from '../../src/http/connections.js';
import { Destination } from '../../src/http/destination.js';

const asPool = (e: EventEmitter) => e as unknown as Dispatcher;

describe('ConnectionLog', () => {
  it('numbers each connection an origin opens, and forgets it when it closes', () => {
    const d = new EventEmitter();
    const log = ConnectionLog.attach(asPool(d));
    const a = log.entry('http://a:1');
    const b = log.entry('http://b:1');
    expect(a.current).toBeUndefined();
    d.emit('connect', new URL('http://a:1'), []);
    d.emit('connect', 'http://b:1', []);
    const first = a.current;
    expect(first).toBeTypeOf('number');
    expect(b.current).toBeTypeOf('number');
    expect(b.current).not.toBe(first);
    d.emit('disconnect', new URL('http://a:1'), [], new Error('closed'));
    expect(a.current).toBeUndefined();
    d.emit('connect', 'http://a:1', []);
    // A new connection is never mistaken for the one before it.
    expect(a.current).not.toBe(first);
    expect(log.entry('http://a:1')).toBe(a);
    log.release();
  });

  it('an origin with several connections (nodes behind one gateway) has one open until the last closes', () => {
    const d = new EventEmitter();
    const log = ConnectionLog.attach(asPool(d));
    const g = log.entry('http://gw:80');
    d.emit('connect', 'http://gw:80', []);
    d.emit('connect', 'http://gw:80', []);
    const newest = g.current;
    // A request that begins now and sees no new connection went out on one of these two.
    d.emit('disconnect', 'http://gw:80', [], new Error('closed'));
    expect(g).toEqual({ current: newest, open: 1 });
    d.emit('disconnect', 'http://gw:80', [], new Error('closed'));
    expect(g).toEqual({ current: undefined, open: 0 });
    // A disconnect never seen connected (the log attached late) leaves the count at zero.
    d.emit('disconnect', 'http://gw:80', [], new Error('closed'));
    expect(g.open).toBe(0);
    log.release();
  });

  it('an entry held by a destination stays live when the last client releases the log and a new one attaches', () => {
    const d = new EventEmitter();
    const dest = new Destination(new URL('http://node-1:8080/health'));
    const log = ConnectionLog.attach(asPool(d));
    const held = dest.connectionIn(log);
    d.emit('connect', 'http://node-1:8080', []);
    expect(held.current).toBeTypeOf('number');
    log.release();
    expect(held.current).toBeUndefined();
    expect(d.listenerCount('connect')).toBe(0);
    const again = ConnectionLog.attach(asPool(d));
    expect(dest.connectionIn(again)).toBe(held);
    d.emit('connect', 'http://node-1:8080', []);
    expect(held.current).toBeTypeOf('number');
    again.release();
  });
});
