// The watch joins the daemon as a component: each snapshot gets FleetSnapshot.watch, built from
// the fan-out reads on it (the fan-out component reads, and adds them first). Built when first
// read: the fan-out takes snapshots of its own when it starts rounds, and they never look at the
// watch. Every snapshot's watch comes from the one WatchViews, so an unchanged state is built once.
// A kind with a runtime (kind.ts WatchKindRuntime) has it started here once the config has entries
// of the kind; its data per entry reaches the views.
import type { DaemonComponent, DaemonContext } from '../daemon/component.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { FleetSnapshot } from '../domain.js';
import type { WatchKindRuntime } from './kind.js';
import { watchKinds } from './kinds/registry.js';
import type { WatchSnapshot } from './types.js';
import { WatchViews, type Locals } from './views.js';

export function watchComponent(views: WatchViews = new WatchViews()): DaemonComponent {
  let config: (() => ExporterConfig) | undefined;
  const runtimes = new Map<string, WatchKindRuntime>();
  let running: DaemonContext | undefined;
  let locals: { inner: unknown[]; map: Locals } = { inner: [], map: new Map() };

  /** One map while every runtime's map is the same: the views keep their snapshot. */
  const localsNow = (): Locals => {
    const inner = [...runtimes].map(([kind, r]) => [kind, r.local()] as const);
    if (inner.length !== locals.inner.length || inner.some(([, m], i) => m !== locals.inner[i]))
      locals = { inner: inner.map(([, m]) => m), map: new Map(inner) };
    return locals.map;
  };

  const startRuntimes = () => {
    const ctx = running;
    const entries = ctx?.config().watch?.entries ?? [];
    if (!ctx) return;
    for (const k of watchKinds()) {
      if (!k.runtime || runtimes.has(k.kind) || !entries.some((e) => e.kind === k.kind)) continue;
      const r = k.runtime();
      const logger = ctx.logger.child({ component: 'watch', kind: k.kind });
      r.start({
        entries: () => ctx.config().watch?.entries ?? [],
        intervalMs: () => ctx.config().watch?.intervalMs ?? 30_000,
        stateDir: () => ctx.config().alerting?.stateDir,
        fanOut: () => ctx.snapshot().fanOut,
        now: () => ctx.clock.mono(),
        log: (level, fields, message) => logger[level](fields, message),
      });
      runtimes.set(k.kind, r);
    }
  };

  return {
    name: 'watch',
    open(ctx) {
      config = () => ctx.config();
    },
    start(ctx) {
      running = ctx;
      startRuntimes();
    },
    onReload() {
      startRuntimes();
    },
    async stop() {
      await Promise.all([...runtimes.values()].map((r) => r.stop()));
    },
    addToSnapshot(snap) {
      const current = config?.();
      if (current?.watch) watchWhenRead(snap, () => views.build(current, snap, localsNow()));
    },
  };
}

/** Defines snap.watch as built by `build` on its first read (and kept); it may be replaced like a plain field. */
function watchWhenRead(snap: FleetSnapshot, build: () => WatchSnapshot | undefined): void {
  const settle = (value: WatchSnapshot | undefined) =>
    Object.defineProperty(snap, 'watch', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(snap, 'watch', {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = build();
      settle(value);
      return value;
    },
    set: settle,
  });
}
