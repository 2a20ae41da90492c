// Every metric family the exporter declares, read from where it is declared: the families written
// by hand in src/metrics (fleetLayout without probes), each probe's own families (the probe
// registry), and the prom-client registries of the exporter's own metrics (registered here on a
// scratch registry, as the daemon and its components register them).
import { Registry } from 'prom-client';
import { agentPlatformCollectors } from '../../src/agent/metrics.js';
import { standardComponents } from '../../src/daemon/features.js';
import { evidenceCollectors } from '../../src/evidence/metrics.js';
import { FleetUpstream } from '../../src/exposition/index.js';
import { createLogger } from '../../src/logger.js';
import { fleetLayout, type FleetFamily, type NetworkFamily } from '../../src/metrics/fleetFamilies.js';
import { processMetricsRegistry } from '../../src/metrics/processMetrics.js';
import { exporterCollectors } from '../../src/metrics/exporterFamilies.js';
import { fanOutProbes, nodeProbes } from '../../src/probes/registry.js';
import type { NodeProbe } from '../../src/probes/types.js';
import { shardComponent } from '../../src/shard/component.js';
import { watchFamilies as registeredWatchFamilies } from '../../src/watch/kinds/registry.js';
import { FLEET_PRESENCE, REGISTRY_SOURCES } from './metricPresence.js';

export interface MetricDoc {
  name: string;
  type: string;
  labels: readonly string[];
  help: string;
  /** What produces it: a probe (the node request behind it), or a part of the exporter. */
  source: string;
  /** When a series is there and when it is not. */
  presence: string;
}

export interface MetricCatalogue {
  /** Per node, per network and per validator: the fleet as the probes see it. */
  fleet: MetricDoc[];
  /** The exporter's own families (prom-client registries). */
  exporter: MetricDoc[];
  /** process_* and nodejs_* (prom-client's default metrics). */
  process: MetricDoc[];
}

const NODE = ['node', 'network'];
const KIND_LABELS: Record<string, readonly string[]> = {
  node: NODE,
  lag: NODE,
  info: [...NODE, 'version', 'chain_id', 'rpc_namespace', '<each configured label>'],
  probe: [...NODE, 'probe'],
  backoff: [...NODE, 'probe'],
  failures: [...NODE, 'probe', 'reason'],
};

const typeIn = (headerText: string) => /# TYPE \S+ (\S+)/.exec(headerText)?.[1] ?? 'untyped';
const perLabels = (per: string) => (per === 'node' ? NODE : per === 'network' ? ['network'] : ['network', per]);

/** "GET /health" or "JSON-RPC <ns>_getValidators": the node request a probe makes. */
export function probeRequest(d: NodeProbe): string {
  return d.request.kind === 'get' ? `GET ${d.request.path}` : `<ns>_${d.request.method} (JSON-RPC)`;
}

export async function metricCatalogue(): Promise<MetricCatalogue> {
  return { fleet: fleetFamilies(), exporter: await registryFamilies(), process: await processFamilies() };
}

function fleetFamilies(): MetricDoc[] {
  const shared = fleetLayout([]);
  const fromProbe = new Map<string, { source: string; per: string }>();
  for (const d of nodeProbes())
    for (const f of d.metrics)
      fromProbe.set(f.name, { source: `probe \`${probeRequest(d)}\``, per: f.per === 'entity' ? f.label : f.per });
  const layout = fleetLayout(nodeProbes());
  const doc = (f: FleetFamily | NetworkFamily, labels: readonly string[], defaultPresence: string): MetricDoc => {
    const probe = fromProbe.get(f.name);
    return {
      name: f.name,
      type: typeIn(f.text),
      labels,
      help: helpIn(f.text),
      source: probe?.source ?? (labels.includes('node') ? 'every polled node' : 'the nodes of the network'),
      presence: FLEET_PRESENCE[f.name] ?? defaultPresence,
    };
  };
  const sharedNames = new Set([...shared.nodeFamilies, ...shared.networkFamilies].map((f) => f.name));
  const nodeDocs = layout.nodeFamilies.map((f) =>
    doc(
      f,
      KIND_LABELS[f.kind] ?? NODE,
      sharedNames.has(f.name)
        ? 'One series per polled node (per probe it runs, for per-probe families).'
        : PROBE_VALUE_PRESENCE,
    ),
  );
  const networkDocs = layout.networkFamilies.map((f) => {
    const per = fromProbe.get(f.name)?.per ?? (f.per === 'entity' ? f.label : f.per);
    return doc(
      f,
      perLabels(per),
      per === 'validator'
        ? 'One series per active validator of the network, from the highest node up.'
        : 'One series per network with a value; absent while no node up has given it.',
    );
  });
  return [...nodeDocs, ...networkDocs, ...fanOutFamilies(), ...watchFamilies()];
}

/** Families of the probes that read entities (watched validators, miners, accounts) through the fleet's nodes. */
function fanOutFamilies(): MetricDoc[] {
  return fanOutProbes().flatMap(([name, probe]) =>
    probe.metrics.map((f) => ({
      name: f.name,
      type: 'gauge',
      labels: ['network', "<the entry's labels>", '<its kind: validator, miner or account>'],
      help: f.help,
      source: `fan-out probe \`${name}\` (\`<ns>_${probe.method}\`)`,
      presence: 'One series per entity read; absent until its first successful read, and while its last read failed.',
    })),
  );
}

/** The ledger_watch_* families (src/watch/families.ts): one series per watched entry of their kinds. */
function watchFamilies(): MetricDoc[] {
  return registeredWatchFamilies().map((f) => ({
    name: f.name,
    type: f.type,
    labels: [
      'network',
      'name',
      f.kinds.length === 1 ? f.kinds[0]! : f.kinds.join(' | '),
      ...(f.extraLabels ?? (f.extraLabel ? [f.extraLabel] : [])),
    ],
    help: f.help,
    source: `watch: (${f.kinds.join(', ')} entries)`,
    presence:
      'One series per watched entry of the kinds named, in the shard that reads it; absent while its value is ' +
      'unknown (not read yet, or the last read failed).',
  }));
}

const PROBE_VALUE_PRESENCE =
  'Absent while the probe has no value: not run on the node, failed at its last run, or not offered by its build.';

function helpIn(headerText: string): string {
  const line = /# HELP \S+ (.*)/.exec(headerText)?.[1] ?? '';
  return line.replace(/\\n/g, ' ').replace(/\\\\/g, '\\');
}

interface PromMetric {
  name: string;
  help: string;
  type?: string;
  labelNames?: readonly string[];
}

async function registryFamilies(): Promise<MetricDoc[]> {
  const out: MetricDoc[] = [];
  for (const src of registrySources()) {
    const registry = new Registry();
    src.register(registry);
    for (const m of registry.getMetricsAsArray() as unknown as PromMetric[]) {
      out.push({
        name: m.name,
        type: m.type ?? 'untyped',
        labels: m.labelNames ?? [],
        help: m.help,
        source: src.source,
        presence: REGISTRY_SOURCES[src.source] ?? '',
      });
    }
  }
  return out;
}

async function processFamilies(): Promise<MetricDoc[]> {
  return (processMetricsRegistry('text').getMetricsAsArray() as unknown as PromMetric[]).map((m) => ({
    name: m.name,
    type: m.type ?? 'untyped',
    labels: m.labelNames ?? [],
    help: m.help,
    source: 'process',
    presence: REGISTRY_SOURCES.process ?? '',
  }));
}

/** Each part of the exporter that registers families, named as the metrics page groups them. */
function registrySources(): Array<{ source: string; register(r: Registry): void }> {
  const noCounters = () => ({ counters: { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() } });
  const silent = createLogger({ level: 'silent' });
  const components = [
    ...standardComponents(silent),
    shardComponent({ spec: () => ({ shard: 0, totalShards: 1 }), assigned: () => 0 }),
  ];
  return [
    { source: 'exporter', register: (r) => exporterCollectors(r, '0.0.0', noCounters) },
    { source: 'metrics probe', register: (r) => new FleetUpstream(() => []).collectors(r) },
    {
      source: 'evidence',
      register: (r) =>
        evidenceCollectors(r, { stats: () => ({ recordsByNode: new Map(), writeErrors: 0, dropped: 0, bytes: 0 }) }),
    },
    {
      source: 'agentPlatform',
      register: (r) =>
        agentPlatformCollectors(r, { last: () => undefined, lastKeyVerdict: () => undefined, counts: () => new Map() }),
    },
    ...components.flatMap((c) => (c.collectors ? [{ source: c.name, register: c.collectors }] : [])),
  ];
}
