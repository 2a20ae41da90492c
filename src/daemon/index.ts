// The daemon: the pipeline with the features every exporter has (re-exposed upstream families,
// the evidence store, the agent platform) plus the components the caller adds (features.ts has
// those of a running exporter: status, alerting, heartbeat, shard). All join the same way.
import { agentPlatformComponent } from '../agent/component.js';
import { evidenceComponent } from '../evidence/component.js';
import type { EvidenceStore } from '../evidence/store.js';
import { upstreamComponent } from '../exposition/component.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { DaemonComponent } from './component.js';
import { startPipeline, type Pipeline, type PipelineOptions } from './pipeline.js';

export { AGENT_EVIDENCE_NODE } from '../agent/evidenceNode.js';
export type { AssemblyContext, DaemonComponent, DaemonContext } from './component.js';

export interface DaemonOptions extends PipelineOptions {
  /** Evidence store off (tests of other parts). Default on. */
  evidence?: boolean;
  /** Components joining besides the built-in ones (status, alerting, heartbeat, shard; tests' own). */
  components?: DaemonComponent[];
}

export interface Daemon extends Pipeline {
  readonly evidence?: EvidenceStore;
}

export async function startDaemon(initial: ExporterConfig, opts: DaemonOptions): Promise<Daemon> {
  const evidence = opts.evidence === false ? undefined : evidenceComponent();
  // This order is the order of the families on /metrics: upstream collectors, the caller's, evidence, agent.
  const components = [
    upstreamComponent(),
    ...(opts.components ?? []),
    ...(evidence ? [evidence] : []),
    agentPlatformComponent(),
  ];
  const pipeline = await startPipeline(initial, opts, components);
  return Object.assign(pipeline, { evidence: evidence?.store() });
}
