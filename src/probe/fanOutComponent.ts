// The fan-out probes join the daemon as a component: a reader of their own (client, timers,
// in-flight bounds), their reads on every snapshot (FleetSnapshot.fanOut, rendered on /metrics).
import type { DaemonComponent } from '../daemon/component.js';
import { HttpClient } from '../http/client.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import { fanOutProbes } from '../probes/registry.js';
import { EntityReads } from '../state/entityReads.js';
import { FanOutReader, type FanOutOptions } from './fanOut.js';

export type FanOutComponent = DaemonComponent & { readonly reads: EntityReads; reader(): FanOutReader | undefined };

export function fanOutComponent(
  tuning: Pick<FanOutOptions, 'perNode' | 'concurrency' | 'attempts' | 'tickMs'> = {},
): FanOutComponent {
  const reads = new EntityReads();
  let reader: FanOutReader | undefined;
  let client: HttpClient | undefined;
  return {
    name: 'fan-out',
    reads,
    reader: () => reader,
    addToSnapshot(snap) {
      snap.fanOut = reads.view();
    },
    start(ctx) {
      client = new HttpClient({ secrets: ctx.secrets });
      fit(client, ctx.config());
      reader = new FanOutReader({
        ...tuning,
        client,
        reads,
        config: ctx.config,
        fleet: ctx.snapshot,
        logger: ctx.logger.child({ component: 'fan-out' }),
      });
      reader.start();
    },
    onReload(diff) {
      if (client) fit(client, diff.next);
    },
    halt() {
      void reader?.stop();
    },
    async stop() {
      await reader?.stop();
      await client?.close();
    },
  };
}

/**
 * One socket per node, kept idle past the longest fan-out interval: with the node's own interval
 * (shorter) every round opened a connection per read, most of a read's CPU.
 */
function fit(client: HttpClient, config: ExporterConfig): void {
  const longest = Math.max(0, ...fanOutProbes().map(([, p]) => p.intervalMs(config)));
  // The nodes as configured: their connection settings (tls) come with them.
  client.fitNodes(config.nodes, { everyMs: longest });
}
