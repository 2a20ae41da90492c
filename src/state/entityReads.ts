// What the fan-out probes last read about each entity (watched address, network): the data of the
// last successful read, or nothing after a failure (nothing stale looks fresh), with the counts the
// read-failure series and alerts use. No I/O: the fan-out reader feeds results in.
import { isDeepStrictEqual } from 'node:util';
import { FAILURE_REASONS, type EntityReadView, type FailureReason, type FanOutEntity } from '../domain.js';

interface EntityRead extends EntityReadView {
  failures: Record<FailureReason, number>;
}

const noFailures = () => Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>;

export class EntityReads {
  private readonly byProbe = new Map<string, Map<string, EntityRead>>();
  /** Bumped at every change, so views can keep work while it stays the same. */
  version = 0;
  /** Reads finished (succeeded or failed) since start, for the benchmark and diagnostics. */
  completed = 0;

  /** Takes a probe's entities now: new ones start unread, gone ones are forgotten, the others keep their reads. */
  sync(probe: string, entities: readonly FanOutEntity[]): void {
    const before = this.byProbe.get(probe);
    // Each round syncs; the same entities (the probes return the same objects) change nothing, and
    // a new version would make every view of the reads be built again.
    if (before && sameEntities(before, entities)) return;
    const next = new Map<string, EntityRead>();
    for (const entity of entities) {
      const old = before?.get(entity.key);
      // The same key for another address or network (an edited entry) is another entity.
      const same = old !== undefined && old.entity.id === entity.id && old.entity.network === entity.network;
      if (same && old.entity !== entity) this.copies.delete(old);
      next.set(
        entity.key,
        same ? Object.assign(old, { entity }) : { entity, consecutiveFailures: 0, failures: noFailures() },
      );
    }
    this.byProbe.set(probe, next);
    this.version++;
  }

  /** Forgets a probe that no longer runs. */
  drop(probe: string): void {
    if (this.byProbe.delete(probe)) this.version++;
  }

  /** A read answered: the data is kept (the previous object when it says the same). */
  succeeded(probe: string, key: string, data: unknown, servedBy: string, at: number): void {
    const r = this.byProbe.get(probe)?.get(key);
    if (!r) return; // the entity left while it was read
    if (r.data === undefined || !isDeepStrictEqual(r.data, data)) r.data = data;
    r.lastSuccessAt = at;
    r.consecutiveFailures = 0;
    r.servedBy = servedBy;
    this.copies.delete(r);
    this.version++;
    this.completed++;
  }

  failed(probe: string, key: string, reason: FailureReason): void {
    const r = this.byProbe.get(probe)?.get(key);
    if (!r) return;
    r.data = undefined;
    r.consecutiveFailures++;
    r.failures[reason]++;
    this.copies.delete(r);
    this.version++;
    this.completed++;
  }

  get(probe: string, key: string): EntityReadView | undefined {
    return this.byProbe.get(probe)?.get(key);
  }

  private kept: { version: number; view: ReadonlyMap<string, readonly EntityReadView[]> } | undefined;
  /** Each read's copy as of its last change: a read that did not change keeps its copy (and its identity). */
  private readonly copies = new WeakMap<EntityRead, EntityReadView>();

  /** Every probe's reads, as FleetSnapshot.fanOut shows them: copies, so later reads do not change a snapshot. */
  view(): ReadonlyMap<string, readonly EntityReadView[]> {
    if (this.kept?.version === this.version) return this.kept.view;
    const out = new Map<string, EntityReadView[]>();
    for (const [probe, reads] of this.byProbe)
      out.set(
        probe,
        [...reads.values()].map((r) => this.copyOf(r)),
      );
    this.kept = { version: this.version, view: out };
    return out;
  }

  private copyOf(r: EntityRead): EntityReadView {
    let c = this.copies.get(r);
    if (!c) this.copies.set(r, (c = { ...r, failures: { ...r.failures } }));
    return c;
  }
}

function sameEntities(reads: ReadonlyMap<string, EntityRead>, entities: readonly FanOutEntity[]): boolean {
  if (reads.size !== entities.length) return false;
  let i = 0;
  for (const r of reads.values()) if (r.entity !== entities[i++]) return false;
  return true;
}
