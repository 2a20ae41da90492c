// Which nodes a status board update must look at, read from the fleet: the nodes with a new
// state (the fleet records them for its watchers), the nodes of a network whose tip moved for
// which the new lag is more than a number to show (the others take it in place), the nodes the
// clock alone may change and those holding a change; every node only on the first update and
// when nodes came or went. Walking every node on each update (several times a second) costs more
// than the changes themselves at fleet scale.
import {
  isUp,
  livenessProbes,
  nodeHeight,
  type FleetChanges,
  type FleetState,
  type NodeState,
} from '../state/fleetState.js';
import type { ProbeName } from '../domain.js';
import { NetworkHeights } from './networkHeights.js';
import type { Tracked } from './tracked.js';

/** What the board reads of the fleet: each node's state (its revision says when it changed) and which changed. */
export type BoardFleet = Pick<FleetState, 'nodes' | 'watch' | 'unwatch' | 'size'>;

export class BoardReader {
  /** The nodes of the current update, in the fleet's order (kept to spare an array per update). */
  private readonly order: Tracked[] = [];
  private fleet: BoardFleet | undefined;
  private changes: FleetChanges | undefined;
  private readonly heights = new NetworkHeights();
  /** Each network's nodes in the fleet's order: all of them get a new lag when the network's tip moves. */
  private readonly members = new Map<string, Tracked[]>();
  /** Nodes the clock alone may change (a pause ending, a block age counted here), and nodes holding a change. */
  private readonly timed = new Set<Tracked>();
  private readonly held = new Set<Tracked>();
  private passes = 0;
  /** The last look() read every node (so the sets of nodes looked at each time start afresh). */
  readAllLast = false;

  constructor(
    private readonly byName: Map<string, Tracked>,
    private readonly track: (name: string) => Tracked,
    /**
     * Takes a node's new lag in place when nothing else about it is due (the board's rule); false:
     * the update must look at the node.
     */
    private readonly followLag: (t: Tracked, lagBlocks: number | undefined) => boolean,
  ) {}

  /** Takes in what changed; returns the nodes to look at, in the fleet's order (valid until the next call). */
  look(fleet: BoardFleet): Tracked[] {
    const pass = ++this.passes;
    const changes = this.changesOf(fleet);
    const changed = changes.membership || this.byName.size > fleet.size ? undefined : this.readChanged(changes, pass);
    this.readAllLast = changed === undefined;
    const visit = changed ?? this.readAll(fleet, pass);
    changes.membership = false;
    changes.nodes.clear();
    return visit;
  }

  /** Blocks behind its network's highest up node; undefined without a height. */
  lag(t: Tracked): number | undefined {
    const max = t.height === undefined ? undefined : this.heights.max(t.net);
    return max === undefined ? undefined : max - t.height!;
  }

  /** The next update reads every node (the board's nodes were replaced). */
  readAllNext(): void {
    if (this.changes) this.changes.membership = true;
  }

  private changesOf(fleet: BoardFleet): FleetChanges {
    if (this.fleet !== fleet || !this.changes) {
      if (this.changes) this.fleet?.unwatch(this.changes);
      this.fleet = fleet;
      this.changes = fleet.watch();
    }
    return this.changes;
  }

  /** Reads every node (first update, nodes came or went): the fleet's order, networks and heights afresh. */
  private readAll(fleet: BoardFleet, pass: number): Tracked[] {
    const order = this.order;
    order.length = 0;
    this.heights.reset();
    this.members.clear();
    this.timed.clear();
    this.held.clear();
    for (const n of fleet.nodes()) {
      const t = this.track(n.target.name);
      t.seen = pass;
      t.mark = pass;
      t.at = order.length;
      t.net = n.target.network;
      this.read(t, n);
      this.heights.move(t.net, undefined, t.height);
      const m = this.members.get(t.net);
      if (m) m.push(t);
      else this.members.set(t.net, [t]);
      order.push(t);
    }
    if (this.byName.size > order.length)
      for (const [name, t] of this.byName) if (t.seen !== pass) this.byName.delete(name);
    this.heights.settle();
    return order;
  }

  /**
   * The nodes this update must look at, in the fleet's order: those with a new state, those of a
   * network whose tip moved that do not take the new lag in place, those the clock may change and
   * those holding a change. Undefined when a node is not where the last full read put it.
   */
  private readChanged(changes: FleetChanges, pass: number): Tracked[] | undefined {
    for (const n of changes.nodes) {
      const t = this.byName.get(n.target.name);
      if (!t || t.node !== n || t.net !== n.target.network) return undefined;
    }
    const order = this.order;
    order.length = 0;
    for (const n of changes.nodes) {
      const t = this.byName.get(n.target.name)!;
      const before = t.height;
      this.read(t, n);
      this.heights.move(t.net, before, t.height);
      this.mark(t, pass);
    }
    // A tip that moved changes every member's lag, but most members only show it: taken in place
    // here (a check per node), the update looks at the few it may change otherwise. Visiting
    // every member was about a third of the board's update time in a profile at 1,000 nodes / 15 s.
    for (const net of this.heights.settle()) {
      for (const t of this.members.get(net) ?? []) {
        if (t.mark !== pass && (this.timed.has(t) || this.held.has(t) || !this.followLag(t, this.lag(t))))
          this.mark(t, pass);
      }
    }
    for (const t of this.timed) this.mark(t, pass);
    for (const t of this.held) this.mark(t, pass);
    return order.sort(byFleetOrder);
  }

  private mark(t: Tracked, pass: number): void {
    if (t.mark === pass) return;
    t.mark = pass;
    this.order.push(t);
  }

  /** Keeps the sets of nodes looked at on every update in step with what the node just got. */
  note(t: Tracked): void {
    const d = t.derived!;
    if (d.validUntil !== Infinity || d.ageFrom !== undefined) this.timed.add(t);
    else this.timed.delete(t);
    if (t.heldSince !== undefined) this.held.add(t);
    else this.held.delete(t);
  }

  /** Takes in what changed in a node's state since the last update: whether it is up, its height. */
  private read(t: Tracked, n: NodeState): void {
    t.node = n;
    if (t.revision !== n.revision) {
      t.revision = n.revision;
      t.changed = true;
      if (t.liveOf !== n.target.probes) {
        t.liveOf = n.target.probes;
        t.live = sharedLiveness(n.target.probes);
      }
      t.up = isUp(n, t.live);
      t.height = nodeHeight(n, t.up);
    }
  }
}

const byFleetOrder = (a: Tracked, b: Tracked): number => a.at - b.at;

/** One liveness list per distinct probe list (a few), not one array per node; bounded all the same. */
const liveness = new Map<string, readonly ProbeName[]>();

export function sharedLiveness(probes: readonly ProbeName[]): readonly ProbeName[] {
  const key = probes.join(',');
  let live = liveness.get(key);
  if (live === undefined) {
    live = Object.freeze(livenessProbes(probes));
    if (liveness.size < 256) liveness.set(key, live);
  }
  return live;
}
