// The watch joins the daemon as a component: each snapshot gets FleetSnapshot.watch, built from
// the fan-out reads on it (the fan-out component reads, and adds them first).
import type { DaemonComponent } from '../daemon/component.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import { WatchViews } from './views.js';

export function watchComponent(): DaemonComponent {
  let config: (() => ExporterConfig) | undefined;
  const views = new WatchViews();
  return {
    name: 'watch',
    open(ctx) {
      config = () => ctx.config();
    },
    addToSnapshot(snap) {
      const w = config && views.build(config(), snap);
      if (w) snap.watch = w;
    },
  };
}
