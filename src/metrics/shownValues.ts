// What the kept lines of a run of nodes show, value by value, so a node's new results rewrite only
// the families whose values changed: of a node's ~48 lines a poll usually changes ~17 (heights,
// block age, durations, last success times); building and encoding the others again was most of
// the cost of keeping the lines up to date.
import type { NodeView } from '../domain.js';
import type { FleetFamily } from './fleetFamilies.js';

/** Where each family's values sit among a node's values, for nodes of up to `maxProbes` probes. */
export interface ValuePlan {
  maxProbes: number;
  /** Per family (layout order): index of its first value in a node's values. */
  offsets: Int32Array;
  /** Values per node. */
  perNode: number;
}

/** Info reads four things (version, chain id, namespace, the label object); failures, one object per probe. */
const INFO_REFS = 4;

export function valuePlan(families: readonly FleetFamily[], maxProbes: number): ValuePlan {
  const offsets = new Int32Array(families.length);
  let at = 0;
  families.forEach((f, i) => {
    offsets[i] = at;
    at += f.kind === 'node' || f.kind === 'lag' ? 1 : f.kind === 'info' ? 0 : maxProbes;
  });
  return { maxProbes, offsets, perNode: at };
}

const UNSET = 0;
const UNDEFINED = 1;
const NUMBER = 2;
/** A reference no view holds: what a node shows before its first take(). */
const NOT_SEEN = Symbol('not seen');

export class ShownValues {
  private readonly nums: Float64Array;
  /** Per value: UNSET (nothing shown yet: any value is a change), UNDEFINED or NUMBER. */
  private readonly kinds: Uint8Array;
  /** Per node: the info inputs, then each probe's failure counters object. */
  private readonly refs: unknown[];

  constructor(
    nodes: number,
    private readonly plan: ValuePlan,
  ) {
    this.nums = new Float64Array(nodes * plan.perNode);
    this.kinds = new Uint8Array(nodes * plan.perNode);
    this.refs = new Array<unknown>(nodes * (INFO_REFS + plan.maxProbes)).fill(NOT_SEEN);
  }

  /** Forgets what node `at` shows: its next take() of every family is a change. */
  forget(at: number): void {
    const per = this.plan.perNode;
    this.kinds.fill(UNSET, at * per, (at + 1) * per);
    const refs = INFO_REFS + this.plan.maxProbes;
    this.refs.fill(NOT_SEEN, at * refs, (at + 1) * refs);
  }

  /**
   * Stores what family `f` (index `i`) of node `at` shows for view `n` and height lag `lag`; true
   * when it differs from what was stored, i.e. the family's lines must be written again.
   */
  take(at: number, i: number, f: FleetFamily, n: NodeView, lag: number | undefined): boolean {
    if (n.probes.length > this.plan.maxProbes) return true; // not a table we planned for: always rewrite
    const k = at * this.plan.perNode + this.plan.offsets[i]!;
    let changed = false;
    switch (f.kind) {
      case 'node':
        return this.put(k, f.value(n));
      case 'lag':
        return this.put(k, lag);
      case 'probe':
        for (let j = 0; j < n.probes.length; j++) changed = this.put(k + j, f.value(n.probes[j]!)) || changed;
        return changed;
      case 'backoff':
        for (let j = 0; j < n.probes.length; j++) changed = this.put(k + j, n.probes[j]!.backingOff ? 1 : 0) || changed;
        return changed;
      case 'failures': {
        const r = at * (INFO_REFS + this.plan.maxProbes) + INFO_REFS;
        for (let j = 0; j < n.probes.length; j++) {
          const counts = n.probes[j]!.failures;
          // Counters only grow within one counters object: the same object and the same total
          // means the same counts.
          let total = 0;
          for (const [reason] of f.reasons) total += counts[reason];
          changed = this.put(k + j, total) || changed;
          if (this.refs[r + j] !== counts) {
            this.refs[r + j] = counts;
            changed = true;
          }
        }
        return changed;
      }
      case 'info': {
        const r = at * (INFO_REFS + this.plan.maxProbes);
        changed = this.ref(r, n.health?.version);
        changed = this.ref(r + 1, n.health?.chainId) || changed;
        changed = this.ref(r + 2, n.namespace) || changed;
        return this.ref(r + 3, n.labels) || changed;
      }
    }
  }

  private put(k: number, v: number | undefined): boolean {
    // NaN never equals itself: a NaN value is written every time, which is correct, only slower.
    if (v === undefined) {
      if (this.kinds[k] === UNDEFINED) return false;
      this.kinds[k] = UNDEFINED;
      return true;
    }
    if (this.kinds[k] === NUMBER && this.nums[k] === v) return false;
    this.kinds[k] = NUMBER;
    this.nums[k] = v;
    return true;
  }

  private ref(r: number, v: unknown): boolean {
    if (this.refs[r] === v) return false;
    this.refs[r] = v;
    return true;
  }
}
