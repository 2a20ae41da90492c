// watch: the operator's own validators, miners and accounts, read through the fleet's nodes of
// their network. Owns the schema (addresses as real nodes take them: 64 lowercase hex, no 0x),
// the checks that span entries (a name used twice across watch:, a network no node belongs to)
// and the resolution into WatchEntry. seatMarginBelow is a percentage string ("10%"), as written
// in the contract; minBalance a number of tokens in the network's decimals.
import * as z from 'zod';
import type { WatchEntry, WatchKind } from '../../watch/types.js';
import type { PathProblem } from '../problems.js';
import { parseDuration } from '../duration.js';
import { checked, duration, isObj, nameOf } from './fields.js';
import { defineSection } from './section.js';

export const DEFAULT_WATCH_INTERVAL = '30s';

/** Why `s` is not an address real nodes take, or undefined. */
export function addressReason(s: string): string | undefined {
  if (/^0x/i.test(s)) return 'must not start with 0x: write the 64 hex characters alone';
  if (/^[0-9a-fA-F]{64}$/.test(s) && s !== s.toLowerCase()) return 'must be lowercase hex';
  if (!/^[0-9a-f]{64}$/.test(s)) return `must be 64 lowercase hex characters (got ${s.length} characters)`;
  return undefined;
}

const PERCENT = /^(\d{1,2}(?:\.\d+)?)%$/;

/** Why `s` is not a margin such as 10% (above 0, below 100), or undefined. */
export function percentReason(s: string): string | undefined {
  const m = PERCENT.exec(s);
  if (!m || Number(m[1]) <= 0) return 'must be a percentage above 0% and below 100%, e.g. 10%';
  return undefined;
}

const address = checked(
  addressReason,
  'address ',
  'address must be a string of 64 lowercase hex characters, no 0x prefix',
).meta({
  description: 'The address: 64 lowercase hex characters, no 0x prefix (as real nodes take it).',
});
const network = nameOf('network name')
  .default('default')
  .meta({ description: 'The network whose nodes read it (a node of another network never does).' });
const base = {
  name: nameOf('watch name').meta({ description: 'Unique across watch:; the `name` label.' }),
  address,
  network,
};

const validator = z.strictObject({
  ...base,
  seatMarginBelow: checked(
    percentReason,
    'seatMarginBelow ',
    'seatMarginBelow must be a percentage such as 10% (a string, not a fraction)',
  )
    .optional()
    .meta({ description: 'Warn when its weight is within this much of the lowest seat, e.g. 10%.' }),
  commissionBps: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .optional()
    .meta({ description: 'The commission it should charge, in basis points; any other value alerts.' }),
});
const miner = z.strictObject(base);
const account = z.strictObject({
  ...base,
  minBalance: z
    .number({ error: 'minBalance must be a number of tokens' })
    .nonnegative()
    .finite()
    .optional()
    .meta({ description: 'Tokens (network decimals); below it LedgerAccountBalanceLow fires.' }),
});

const schema = z
  .strictObject({
    interval: duration('How often each entry is read.').default(DEFAULT_WATCH_INTERVAL),
    validators: z
      .array(validator)
      .default([])
      .meta({ description: 'Validators to watch: active set, rank, stake, rewards, jail, seat margin, commission.' }),
    miners: z
      .array(miner)
      .default([])
      .meta({ description: 'Miners to watch: registration, activity, check-ins, reward multiplier.' }),
    accounts: z.array(account).default([]).meta({ description: 'Accounts to watch: balance and unbonding.' }),
  })
  .optional()
  .meta({
    description: "The operator's own validators, miners and accounts, read through the fleet's nodes of their network.",
  });

const LISTS: Array<[string, WatchKind]> = [
  ['validators', 'validator'],
  ['miners', 'miner'],
  ['accounts', 'account'],
];

export const watchSection = defineSection({
  shape: { watch: schema },

  check(doc) {
    const w = doc.watch;
    if (!isObj(w)) return [];
    return [...duplicateNames(w), ...unknownNetworks(w, nodeNetworks(doc))];
  },

  resolve({ watch }) {
    if (!watch) return {};
    const entries: WatchEntry[] = [
      ...watch.validators.map((v): WatchEntry => ({
        kind: 'validator',
        name: v.name,
        address: v.address,
        network: v.network,
        ...(v.seatMarginBelow !== undefined && { seatMarginBelow: Number(PERCENT.exec(v.seatMarginBelow)![1]) / 100 }),
        ...(v.commissionBps !== undefined && { commissionBps: v.commissionBps }),
      })),
      ...watch.miners.map((m): WatchEntry => ({ kind: 'miner', name: m.name, address: m.address, network: m.network })),
      ...watch.accounts.map((a): WatchEntry => ({
        kind: 'account',
        name: a.name,
        address: a.address,
        network: a.network,
        ...(a.minBalance !== undefined && { minBalance: a.minBalance }),
      })),
    ];
    return { watch: { intervalMs: parseDuration(watch.interval), entries } };
  },
});

function entriesOf(w: Record<string, unknown>): Array<{ list: string; i: number; e: Record<string, unknown> }> {
  return LISTS.flatMap(([list]) =>
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
