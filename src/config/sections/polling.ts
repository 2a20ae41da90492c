// `polling:`: how the fleet is polled and the per-node budget, i.e. what one node may make the
// exporter hold (series, learned text, families, HELP length, validators). Read at start-up only
// (config/diff.ts): every node has the same limits until the next restart.
import * as z from 'zod';
import { DEFAULT_UPSTREAM_BUDGET } from '../../exposition/index.js';
import { DEFAULT_MAX_VALIDATORS } from '../../probes/budget.js';
import { parseByteSize } from '../byteSize.js';
import { byteSize } from './fields.js';
import { defineSection } from './section.js';

const KIB = 1024;
const count = (max: number, fallback: number, description: string) =>
  z.number().int().min(1).max(max).default(fallback).meta({ description });

export const pollingSection = defineSection({
  shape: {
    polling: z
      .strictObject({
        concurrency: count(10_000, 64, 'Probe requests in flight across the fleet.'),
        maxResponseBytes: byteSize('Cap on a response body read from a node.', KIB, 2 ** 30).default('4MiB'),
        maxUpstreamSeries: count(
          1_000_000,
          DEFAULT_UPSTREAM_BUDGET.maxSeries,
          'Per-node budget: upstream /metrics series kept (a histogram or summary series counts whole); parsing ' +
            'stops here.',
        ),
        maxUpstreamBytes: byteSize(
          "Per-node budget: characters learned from a node's /metrics (names, label names and values, HELP) plus " +
            '120 per sample and 300 per family; parsing stops here.',
          KIB,
          2 ** 30,
        ).default(`${DEFAULT_UPSTREAM_BUDGET.maxBytes / KIB}KiB`),
        maxUpstreamFamilies: count(
          1_000_000,
          DEFAULT_UPSTREAM_BUDGET.maxFamilies,
          'Per-node budget: upstream /metrics families, also those with only HELP/TYPE lines; parsing stops here.',
        ),
        maxUpstreamHelpChars: count(
          1_000_000,
          DEFAULT_UPSTREAM_BUDGET.maxHelpChars,
          'Per-node budget: HELP text of an upstream family is cut after this many characters.',
        ),
        maxValidators: count(
          1_000_000,
          DEFAULT_MAX_VALIDATORS,
          'Per-node budget: validators one getValidators answer may list; a longer list is refused as an invalid ' +
            'response.',
        ),
      })
      .prefault({})
      .meta({
        description: 'How the fleet is polled, and what one node may make the exporter hold (read at start-up only).',
      }),
  },
  resolve: ({ polling: p }) => ({
    polling: {
      concurrency: p.concurrency,
      maxResponseBytes: parseByteSize(p.maxResponseBytes),
      maxUpstreamSeries: p.maxUpstreamSeries,
      maxUpstreamBytes: parseByteSize(p.maxUpstreamBytes),
      maxUpstreamFamilies: p.maxUpstreamFamilies,
      maxUpstreamHelpChars: p.maxUpstreamHelpChars,
      maxValidators: p.maxValidators,
    },
  }),
});
