// The parts of undici the exporter uses, each required from its own file. undici's index loads all
// of undici (fetch, WebSocket, EventSource, caches, mocks) and, through globalThis.Headers, Node's
// own bundled copy as well: 3.3 MB more heap and ~90 more modules in every daemon, none of them
// used. undici has no exports map, so its files are reachable; an upgrade that moves one fails at
// start-up and in test/http/dispatcher.test.ts, never silently.
import { createRequire, Module } from 'node:module';
import type * as undici from 'undici';

const require = createRequire(import.meta.url);

/**
 * undici's client requires its HTTP/2 half at load, and that requires node:http2 (1.3 MB of RSS
 * in a daemon that already has net and tls); the client calls it only for a TLS connection that
 * negotiated h2, which needs `allowH2`, an option the exporter never sets. Until such a call a
 * stand-in holds its place in the require cache, and the first call loads the real one. Nothing
 * happens when undici's client is already loaded (a program that imported undici's index).
 */
export function deferHttp2(): void {
  const path = require.resolve('undici/lib/dispatcher/client-h2.js');
  if (require.cache[path] || require.cache[require.resolve('undici/lib/dispatcher/client.js')]) return;
  type ConnectH2 = (...args: unknown[]) => unknown;
  let real: ConnectH2 | undefined;
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = function connectH2(this: unknown, ...args: unknown[]) {
    if (!real) {
      delete require.cache[path];
      real = require(path) as ConnectH2;
    }
    return real.apply(this, args);
  };
  require.cache[path] = standIn;
}

deferHttp2();

export const Client = require('undici/lib/dispatcher/client.js') as typeof undici.Client;
export type Client = undici.Client;
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof undici.Pool;
export type Pool = undici.Pool;
/** The base class of undici's dispatchers (without undici's request/stream helpers: the exporter only dispatches). */
export const DispatcherBase = require('undici/lib/dispatcher/dispatcher.js') as typeof undici.Dispatcher;
export const buildConnector = require('undici/lib/core/connect.js') as typeof undici.buildConnector;
export const errors = require('undici/lib/core/errors.js') as typeof undici.errors;
