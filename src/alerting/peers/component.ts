// Silence replication joins the daemon: a replicator while the config lists `alerting.peers`
// (nothing runs and nothing of it is loaded without them), rebuilt when a reload changes the alerting section.
import type { DaemonComponent, DaemonContext } from '../../daemon/component.js';
import type { SilenceService } from '../silences/types.js';
import type { PeerReplicator } from './replicator.js';

export interface PeersOptions {
  /** The running silence store; undefined while alerting is off. */
  silences(): SilenceService | undefined;
  /** Waits after a failed send (default 1 s, doubling to 1 min). */
  backoff?: { minMs: number; maxMs: number };
}

export function peersComponent(opts: PeersOptions): DaemonComponent {
  let replicator: PeerReplicator | undefined;
  let ctx: DaemonContext | undefined;
  // Rebuilds apply one after another, so a stop in progress never overlaps the next start.
  let chain: Promise<void> = Promise.resolve();
  const rebuild = () => {
    chain = chain.then(async () => {
      await replicator?.stop();
      replicator = ctx ? await build(ctx, opts) : undefined;
    });
    return chain;
  };
  return {
    name: 'silence-peers',
    start(c) {
      ctx = c;
      return rebuild();
    },
    onReload(diff) {
      if (diff.sections.includes('alerting')) void rebuild();
    },
    async stop() {
      ctx = undefined;
      await rebuild();
    },
  };
}

/** The replicator's module is loaded only once a config lists peers. */
async function build(c: DaemonContext, opts: PeersOptions): Promise<PeerReplicator | undefined> {
  const peers = c.config().alerting?.peers ?? [];
  const silences = opts.silences();
  if (peers.length === 0 || !silences) return undefined;
  const { PeerReplicator } = await import('./replicator.js');
  const r = new PeerReplicator({
    peers,
    silences,
    client: c.client,
    secrets: c.secrets,
    log: c.logger.child({ component: 'silence-peers' }),
    now: () => c.clock.wall(),
    backoff: opts.backoff ?? { minMs: 1_000, maxMs: 60_000 },
  });
  r.start();
  return r;
}
