// The probes in use: the built-in ones (index.ts) and any registered at run time (an extension,
// a test), node probes and fan-out probes alike. The runner asks and parses through it, the fleet
// state applies and clears, and the /metrics view renders each probe's families.
import type { NodeValues, ProbeData } from '../domain.js';
import { BUILT_IN_FAN_OUT, BUILT_IN_PROBES } from './index.js';
import type { FanOutProbe, NodeProbe, Probe } from './types.js';

const table = new Map<string, Probe>([...Object.entries(BUILT_IN_PROBES), ...Object.entries(BUILT_IN_FAN_OUT)]);

/** Adds a probe; its name must be new. */
export function registerProbe<D extends ProbeData>(name: string, probe: NodeProbe<D>): void;
export function registerProbe<D>(name: string, probe: FanOutProbe<D>): void;
export function registerProbe(name: string, probe: Probe): void {
  if (table.has(name)) throw new Error(`probe ${name} is already registered`);
  table.set(name, probe);
}

/** Removes a probe added by registerProbe; the built-in ones stay. */
export function unregisterProbe(name: string): void {
  if (!Object.hasOwn(BUILT_IN_PROBES, name) && !Object.hasOwn(BUILT_IN_FAN_OUT, name)) table.delete(name);
}

/** The node probe of that name; throws for an unknown name or a fan-out probe. */
export function nodeProbe(name: string): NodeProbe {
  const p = table.get(name);
  if (!p || p.target !== 'node') throw new Error(`unknown node probe ${name}`);
  return p;
}

/** Every node probe in use, built-in ones first, in registration order. */
export function nodeProbes(): NodeProbe[] {
  const out: NodeProbe[] = [];
  for (const p of table.values()) if (p.target === 'node') out.push(p);
  return out;
}

/** Every fan-out probe in use, with its name, in registration order. */
export function fanOutProbes(): Array<[string, FanOutProbe]> {
  const out: Array<[string, FanOutProbe]> = [];
  for (const [name, p] of table) if (p.target === 'entities') out.push([name, p]);
  return out;
}

/** Applies a success through its probe's module. */
export function applyProbeData(node: NodeValues, data: ProbeData, at: number): boolean {
  return nodeProbe(data.probe).apply(node, data, at);
}
