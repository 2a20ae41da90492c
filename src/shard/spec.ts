// The shard this replica runs as, from the command line (--shard, --total-shards,
// --shard-from-hostname) over the config's `sharding:` section. Flags win, one by one, so a
// StatefulSet can keep one ConfigMap and take only the index from the pod name.
import { shardFromHostname, shardSpecProblems, UNSHARDED, type ShardSpec } from './assign.js';

export interface ShardFlags {
  shard?: string;
  totalShards?: string;
  fromHostname?: boolean;
}

export class ShardSpecError extends Error {}

/** A whole number >= 0 written in decimal digits only ("2", not "2.0", "+2" or "0x2"). */
function wholeNumber(flag: string, raw: string): number {
  if (!/^\d{1,9}$/.test(raw.trim())) throw new ShardSpecError(`${flag} must be a whole number, got "${raw}"`);
  return Number(raw.trim());
}

/**
 * The effective shard spec. `section` is the config's `sharding:` (already validated), `hostname`
 * the pod name for --shard-from-hostname. Throws ShardSpecError with a message naming the flag.
 */
export function resolveShardSpec(flags: ShardFlags, section: ShardSpec | undefined, hostname: string): ShardSpec {
  if (flags.shard !== undefined && flags.fromHostname) {
    throw new ShardSpecError(
      '--shard and --shard-from-hostname are exclusive: give the index or take it from the pod name, not both',
    );
  }
  let shard = section?.shard;
  if (flags.shard !== undefined) shard = wholeNumber('--shard', flags.shard);
  if (flags.fromHostname) {
    shard = shardFromHostname(hostname);
    if (shard === undefined) {
      throw new ShardSpecError(
        `--shard-from-hostname: the hostname "${hostname}" does not end in -<ordinal> (a StatefulSet pod name ` +
          `such as ledger-fleet-exporter-2)`,
      );
    }
  }
  let totalShards = section?.totalShards;
  if (flags.totalShards !== undefined) totalShards = wholeNumber('--total-shards', flags.totalShards);
  if (shard === undefined && totalShards === undefined) return UNSHARDED;
  if (totalShards === undefined)
    throw new ShardSpecError(
      '--total-shards <n> is required with --shard or --shard-from-hostname (or sharding.totalShards in the config)',
    );
  if (shard === undefined)
    throw new ShardSpecError(
      '--total-shards needs the shard index: --shard <i>, --shard-from-hostname, or sharding.shard in the config',
    );
  const spec = { shard, totalShards };
  const problems = shardSpecProblems(spec);
  if (problems.length > 0) throw new ShardSpecError(problems.join('; '));
  return spec;
}
