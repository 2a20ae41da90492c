// The fan-out probes join the daemon as a component: a reader of their own (client, timers,
// in-flight bounds), their reads on every snapshot (FleetSnapshot.fanOut, rendered on /metrics).
import type { DaemonComponent } from '../daemon/component.js';
import { HttpClient } from '../http/client.js';
import { EntityReads } from '../state/entityReads.js';
import { FanOutReader, type FanOutOptions } from './fanOut.js';

export type FanOutComponent = DaemonComponent & { readonly reads: EntityReads; reader(): FanOutReader | undefined };

export function fanOutComponent(tuning: Pick<FanOutOptions, 'perNode' | 'concurrency' | 'attempts' | 'tickMs'> = {}): FanOutComponent {
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
      client.fitNodes(ctx.config().nodes);
      reader = new FanOutReader({ ...tuning, client, reads, config: ctx.config, fleet: ctx.snapshot, logger: ctx.logger.child({ component: 'fan-out' }) });
      reader.start();
    },
    onReload(diff) {
      client?.fitNodes(diff.next.nodes);
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
