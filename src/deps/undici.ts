// The parts of undici the exporter uses, each required from its own file. undici's index loads all
// of undici (fetch, WebSocket, EventSource, caches, mocks) and, through globalThis.Headers, Node's
// own bundled copy as well: 3.3 MB more heap and ~90 more modules in every daemon, none of them
// used. undici has no exports map, so its files are reachable; an upgrade that moves one fails at
// start-up and in test/http/dispatcher.test.ts, never silently.
import { createRequire } from 'node:module';
import type * as undici from 'undici';

const require = createRequire(import.meta.url);

export const Client = require('undici/lib/dispatcher/client.js') as typeof undici.Client;
export type Client = undici.Client;
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof undici.Pool;
export type Pool = undici.Pool;
/** The base class of undici's dispatchers (without undici's request/stream helpers: the exporter only dispatches). */
export const DispatcherBase = require('undici/lib/dispatcher/dispatcher.js') as typeof undici.Dispatcher;
export const buildConnector = require('undici/lib/core/connect.js') as typeof undici.buildConnector;
export const errors = require('undici/lib/core/errors.js') as typeof undici.errors;
/** How undici itself turns raw header buffers into an object (its handler adapter uses it). */
export const parseHeaders = (require('undici/lib/core/util.js') as { parseHeaders: typeof undici.util.parseHeaders })
  .parseHeaders;
