// What the status board keeps per node: the shown status, its history, and what it last read of
// the node's state (so a node is derived again only when that changed).
import type { NodeTarget, ProbeName } from '../domain.js';
import type { NodeState } from '../state/fleetState.js';
import type { Derived } from './derive.js';
import type { NodeHistory } from './history.js';
import type { NodeStatus, ProbeFailure, StatusKind } from './types.js';

export interface Tracked {
  status: NodeStatus;
  history: NodeHistory;
  /** NO_FAILURES until the node's first failed probe (most nodes of a fleet never fail: no Map each). */
  failures: ReadonlyMap<ProbeName, ProbeFailure>;
  heightSince?: { height: number; since: number };
  /** Newest liveness run already in the history. */
  recordedAt: number;
  /** Since when a change of status waits for the node's poll round to finish. */
  heldSince?: number;
  /** Status saved by the previous run, taken as the previous status once this run has polled. */
  restored?: { status: StatusKind; since?: number };
  // What the board last read of the node's state, kept while the state's revision stays the same.
  node?: NodeState;
  revision: number;
  /** The probes deciding "up", for the probe list they were taken from. */
  live: readonly ProbeName[];
  liveOf?: NodeTarget['probes'];
  up: boolean;
  height?: number;
  /** The update in which the node was last in the fleet. */
  seen: number;
  /** The node's network and its place in the fleet's order, as of the last full read. */
  net: string;
  at: number;
  /** The update that last looked at the node. */
  mark: number;
  /** The state changed since the status was last derived. */
  changed: boolean;
  /** The last derived status (the shown one unless a change is held), and until when it holds. */
  derived?: Derived;
  /** The shown status was handed out (board.nodes(), node()): derive makes a new one, never writes over it. */
  lent: boolean;
}

/** What a node that never failed shows: one empty map for every such node. */
export const NO_FAILURES: ReadonlyMap<ProbeName, ProbeFailure> = new Map();

/** The node's failures, to write to: its own map from its first failure on. */
export function failuresOf(t: Tracked): Map<ProbeName, ProbeFailure> {
  if (t.failures === NO_FAILURES) t.failures = new Map();
  return t.failures as Map<ProbeName, ProbeFailure>;
}

export function newTracked(name: string, history: NodeHistory, recordedAt: number): Tracked {
  return {
    status: unknownStatus(name),
    history,
    failures: NO_FAILURES,
    // Every field from the start (fields added later go to a separate property array).
    heightSince: undefined,
    recordedAt,
    heldSince: undefined,
    restored: undefined,
    node: undefined,
    revision: -1,
    live: [],
    liveOf: undefined,
    up: false,
    height: undefined,
    seen: 0,
    net: '',
    at: 0,
    mark: 0,
    changed: true,
    derived: undefined,
    lent: false,
  };
}

function unknownStatus(name: string): NodeStatus {
  return {
    name,
    network: '',
    status: 'unknown',
    reasons: [{ code: 'not_polled' }],
    text: 'not polled yet',
    backingOff: false,
    labels: {},
    probes: [],
  };
}
