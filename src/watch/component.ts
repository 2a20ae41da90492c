// The watch joins the daemon as a component: each snapshot gets FleetSnapshot.watch, built from
// the fan-out reads on it (the fan-out component reads, and adds them first). Built when first
// read: the fan-out takes snapshots of its own when it starts rounds, and they never look at the
// watch. Every snapshot's watch comes from the one WatchViews, so an unchanged state is built once.
import type { DaemonComponent } from '../daemon/component.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { FleetSnapshot } from '../domain.js';
import type { WatchSnapshot } from './types.js';
import { WatchViews } from './views.js';

export function watchComponent(views: WatchViews = new WatchViews()): DaemonComponent {
  let config: (() => ExporterConfig) | undefined;
  return {
    name: 'watch',
    open(ctx) {
      config = () => ctx.config();
    },
    addToSnapshot(snap) {
      const current = config?.();
      if (current?.watch) watchWhenRead(snap, () => views.build(current, snap));
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
