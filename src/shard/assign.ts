// Which nodes one exporter replica polls: shard `shard` of `totalShards`, by jump consistent hash
// of the node name. Every name lands in exactly one shard whatever the others are configured with.
import { jumpConsistentHash, nameKey } from './jumpHash.js';

export interface ShardSpec {
  /** 0-based index of this replica's shard. */
  shard: number;
  /** Number of shards; 1 means "not sharded". */
  totalShards: number;
}

export const UNSHARDED: ShardSpec = Object.freeze({ shard: 0, totalShards: 1 });

/** The shard (0-based) a node name belongs to among totalShards. */
export function shardOfName(name: string, totalShards: number): number {
  return jumpConsistentHash(nameKey(name), totalShards);
}

/** The items (nodes) this shard owns, in their original order. */
export function ownedBy<T extends { name: string }>(items: readonly T[], spec: ShardSpec): T[] {
  if (spec.totalShards === 1) return [...items];
  return items.filter((item) => shardOfName(item.name, spec.totalShards) === spec.shard);
}

/** Problems with a shard spec, as messages ready to show next to the key or flag that set it. */
export function shardSpecProblems(spec: ShardSpec): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(spec.totalShards) || spec.totalShards < 1) {
    problems.push(`total shards must be an integer >= 1, got ${spec.totalShards}`);
  }
  if (!Number.isInteger(spec.shard) || spec.shard < 0) {
    problems.push(`shard must be an integer >= 0, got ${spec.shard}`);
  } else if (Number.isInteger(spec.totalShards) && spec.totalShards >= 1 && spec.shard >= spec.totalShards) {
    problems.push(
      `shard ${spec.shard} is out of range: shards are numbered 0..${spec.totalShards - 1} for total shards ` +
        `${spec.totalShards}`,
    );
  }
  return problems;
}

/**
 * The shard index from a StatefulSet pod name (`<statefulset>-<ordinal>`), as the pod's hostname
 * is; undefined when the name does not end in `-<digits>`.
 */
export function shardFromHostname(hostname: string): number | undefined {
  const match = /-(\d+)$/.exec(hostname.trim());
  if (!match?.[1]) return undefined;
  const ordinal = Number(match[1]);
  return Number.isSafeInteger(ordinal) ? ordinal : undefined;
}
