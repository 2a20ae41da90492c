// Joins the re-exposed upstream families (a node's own /metrics) to the daemon: each result's
// lines are prepared as it arrives and copied into every scrape after the exporter's own families.
import type { DaemonComponent } from '../daemon/component.js';
import { FleetUpstream } from './fleetUpstream.js';

export function upstreamComponent(): DaemonComponent {
  let fleet: FleetUpstream | undefined;
  const opened = () => {
    if (!fleet) throw new Error('upstream component used before the daemon opened it');
    return fleet;
  };
  return {
    name: 'upstream',
    open(ctx) {
      // A node echoing our secrets loses those series. A Secrets set only grows: its size changes
      // whenever scrub may answer otherwise.
      fleet = new FleetUpstream(() => ctx.state.nodes(), {
        scrub: (text) => ctx.secrets.scrub(text),
        scrubVersion: () => ctx.secrets.size,
      });
    },
    collectors: (registry) => opened().collectors(registry),
    reexposition: {
      prepare: (node) => void opened().prepare(node),
      sources: () => opened().sources(),
      write: (sources, om, out) => opened().steps(sources, om, out),
    },
  };
}
