// One NodeProber per configured node, kept in step with reloads. A node whose settings changed
// gets a new prober (and so detects its namespace again); the others keep theirs.
import type { ConfigDiff } from '../config/diff.js';
import type { NodeTarget, PollingSettings } from '../domain.js';
import type { HttpClient } from '../http/client.js';
import { NodeProber, type ProberOptions } from './prober.js';

export class ProberPool {
  private readonly byName = new Map<string, NodeProber>();
  /** One options object for every prober: what they derive from it (budget, limits) is shared too. */
  private readonly options: ProberOptions;

  /** `polling` is the start-up one: limits and the per-node budget are the same for every node until a restart. */
  constructor(client: HttpClient, polling: PollingSettings, nodes: NodeTarget[]) {
    const { concurrency: _scheduler, ...limits } = polling;
    this.options = { client, ...limits };
    for (const t of nodes) this.byName.set(t.name, this.make(t));
  }

  get(name: string): NodeProber | undefined {
    return this.byName.get(name);
  }

  apply(diff: ConfigDiff): void {
    for (const name of diff.nodes.removed) this.byName.delete(name);
    const changed = new Set([...diff.nodes.added, ...diff.nodes.changed]);
    for (const t of diff.next.nodes) if (changed.has(t.name)) this.byName.set(t.name, this.make(t));
  }

  private make(t: NodeTarget): NodeProber {
    return new NodeProber(t, this.options);
  }
}
