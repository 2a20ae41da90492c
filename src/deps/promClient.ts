// The parts of prom-client the exporter uses, each required from its own file. prom-client's index
// also loads its cluster aggregator (node:cluster), summaries (two tree libraries) and the
// Pushgateway client (http, https): 1 MB more heap in every daemon, none of it used.
// prom-client has no exports map, so its files are reachable; an upgrade that moves one fails at
// start-up and in every metrics test, never silently.
import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry.js') as typeof prom.Registry;
export type Registry = prom.Registry;
export const Counter = require('prom-client/lib/counter.js') as typeof prom.Counter;
export type Counter<T extends string = string> = prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge.js') as typeof prom.Gauge;
export type Gauge<T extends string = string> = prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram.js') as typeof prom.Histogram;
export type Histogram<T extends string = string> = prom.Histogram<T>;
export const collectDefaultMetrics = require('prom-client/lib/defaultMetrics.js') as typeof prom.collectDefaultMetrics;
export type { Metric } from 'prom-client';
