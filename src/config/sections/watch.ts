// watch: the operator's own validators, miners and accounts, read through the fleet's nodes of
// their network. Owns the schema (addresses as real nodes take them: 64 lowercase hex, no 0x),
// the checks that span entries (a name used twice across watch:, a network no node belongs to)
// and the resolution into WatchEntry. seatMarginBelow is a percentage string ("10%"), as written
// in the contract; minBalance a number of tokens in the network's decimals.
import * as z from 'zod';
import type { WatchEntry } from '../../watch/types.js';
import { hexAddress } from '../../watch/kinds/fields.js';
import { watchKinds } from '../../watch/kinds/registry.js';
import type { PathProblem } from '../problems.js';
import { parseDuration } from '../duration.js';
import { duration, isObj, nameOf } from './fields.js';
import { defineSection } from './section.js';

export { addressReason, percentReason } from '../../watch/kinds/fields.js';

export const DEFAULT_WATCH_INTERVAL = '30s';

const base = (addressField = 'address') => ({
  name: nameOf('watch name').meta({ description: 'Unique across watch:; the `name` label.' }),
  [addressField]: hexAddress(
    addressField,
    'The address: 64 lowercase hex characters, no 0x prefix (as real nodes take it).',
  ),
  network: nameOf('network name')
    .default('default')
    .meta({ description: 'The network whose nodes read it (a node of another network never does).' }),
});

/** Built at the first parse (or schema export), from the kinds registered by then. */
function sectionSchema() {
  return z
    .strictObject({
      interval: duration('How often each entry is read.').default(DEFAULT_WATCH_INTERVAL),
      ...Object.fromEntries(
        watchKinds(true).map((k) => [
          k.list,
          z
            .array(z.strictObject({ ...base(k.addressField), ...k.fields }))
            .default([])
            .meta({ description: k.description }),
        ]),
      ),
    })
    .optional()
    .meta({
      description:
        "The operator's own validators, miners and accounts, read through the fleet's nodes of their network.",
    });
}

type RawEntry = { name: string; network: string } & Record<string, unknown>;
type RawWatch = { interval: string } & Record<string, unknown>;

const schema = z.lazy(sectionSchema) as unknown as z.ZodOptional<z.ZodType<RawWatch>>;

/** The lists under watch:, by the registered kinds. */
const lists = (): string[] => watchKinds().map((k) => k.list);

export const watchSection = defineSection({
  shape: { watch: schema },

  check(doc) {
    const w = doc.watch;
    if (!isObj(w)) return [];
    return [...duplicateNames(w), ...unknownNetworks(w, nodeNetworks(doc))];
  },

  resolve({ watch }) {
    if (!watch) return {};
    const entries: WatchEntry[] = watchKinds().flatMap((k) =>
      ((watch[k.list] ?? []) as RawEntry[]).map((raw): WatchEntry => ({
        kind: k.kind,
        name: raw.name,
        address: raw[k.addressField ?? 'address'] as string,
        network: raw.network,
        ...k.resolve(raw),
      })),
    );
    return { watch: { intervalMs: parseDuration(watch.interval), entries } };
  },
});

function entriesOf(w: Record<string, unknown>): Array<{ list: string; i: number; e: Record<string, unknown> }> {
  return lists().flatMap((list) =>
    Array.isArray(w[list]) ? (w[list] as unknown[]).flatMap((e, i) => (isObj(e) ? [{ list, i, e }] : [])) : [],
  );
}

function duplicateNames(w: Record<string, unknown>): PathProblem[] {
  const seen = new Map<string, string>();
  const out: PathProblem[] = [];
  for (const { list, i, e } of entriesOf(w)) {
    if (typeof e.name !== 'string') continue;
    const first = seen.get(e.name);
    if (first)
      out.push({
        path: ['watch', list, i, 'name'],
        message: `duplicate watch name "${e.name}" (already used by watch.${first})`,
      });
    else seen.set(e.name, `${list}[${i}]`);
  }
  return out;
}

/** The networks the config's nodes belong to (a node without one is in "default"). */
function nodeNetworks(doc: Record<string, unknown>): Set<string> {
  const nodes = Array.isArray(doc.nodes) ? doc.nodes : [];
  return new Set(nodes.map((n) => (isObj(n) && typeof n.network === 'string' ? n.network : 'default')));
}

function unknownNetworks(w: Record<string, unknown>, networks: Set<string>): PathProblem[] {
  const out: PathProblem[] = [];
  for (const { list, i, e } of entriesOf(w)) {
    const net = typeof e.network === 'string' ? e.network : e.network === undefined ? 'default' : undefined;
    if (net === undefined || networks.has(net)) continue;
    const known = [...networks].sort().join(', ');
    out.push({
      path: ['watch', list, i, ...(e.network === undefined ? ['name'] : ['network'])],
      message: `no node belongs to network "${net}" (nodes are in: ${known || 'none'})`,
    });
  }
  return out;
}
