// The small sections: listen, networks, evidence (polling has its own module). Each owns its
// schema with defaults and its resolution; none holds secrets.
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import { DEFAULT_DECIMALS, DEFAULT_EPOCH_BLOCKS, type NetworkSettings } from '../../domain.js';
import { parseByteSize } from '../byteSize.js';
import { listenReason, parseListenAddress } from '../rules.js';
import { byteSize, checked, nameOf } from './fields.js';
import { defineSection } from './section.js';

export const listenSection = defineSection({
  shape: {
    listen: checked(listenReason)
      .default('0.0.0.0:9715')
      .meta({ description: 'host:port of the exporter HTTP server; IPv6 as [::1]:9715.' }),
  },
  resolve: (raw) => ({ listen: parseListenAddress(raw.listen) }),
});

const networkSchema = z.strictObject({
  decimals: z
    .number()
    .int()
    .min(0)
    .max(36)
    .default(DEFAULT_DECIMALS)
    .meta({ description: 'Decimals of the native token base units.' }),
  epochBlocks: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(DEFAULT_EPOCH_BLOCKS)
    .meta({ description: 'Blocks per epoch, for validators and miners alike (real nodes: 100).' }),
});

export const networksSection = defineSection({
  shape: {
    networks: z
      .record(nameOf('network name'), networkSchema)
      .default({})
      .meta({
        description:
          `Per-network settings; unlisted networks get decimals ${DEFAULT_DECIMALS} and epochBlocks ` +
          `${DEFAULT_EPOCH_BLOCKS}.`,
      }),
  },
  resolve(raw) {
    // Every network in use gets an entry, so consumers need no fallback of their own.
    const { nodes } = raw as typeof raw & { nodes: Array<{ network: string }> };
    const networks: Record<string, NetworkSettings> = {};
    for (const n of nodes) networks[n.network] = { decimals: DEFAULT_DECIMALS, epochBlocks: DEFAULT_EPOCH_BLOCKS };
    for (const [name, s] of Object.entries(raw.networks))
      networks[name] = { decimals: s.decimals, epochBlocks: s.epochBlocks };
    return { networks };
  },
});

export const evidenceSection = defineSection({
  shape: {
    evidence: z
      .strictObject({
        dir: z
          .string()
          .min(1)
          .default('./data/evidence')
          .meta({ description: 'Relative paths are resolved against the config file directory.' }),
        maxBytes: byteSize('Bound on the evidence directory size.', 1024, Number.MAX_SAFE_INTEGER).default('256MiB'),
        maxAgeDays: z
          .number()
          .int()
          .min(1)
          .max(3650)
          .default(30)
          .meta({ description: 'Evidence files older than this many days are deleted.' }),
      })
      .prefault({})
      .meta({ description: 'Where records of 5xx answers are kept, and how much (read at start-up only).' }),
  },
  resolve: ({ evidence: e }, { baseDir }) => ({
    evidence: { dir: resolvePath(baseDir, e.dir), maxBytes: parseByteSize(e.maxBytes), maxAgeDays: e.maxAgeDays },
  }),
});
