// A watched provider's services, from the network's registry read (getServices, once per network)
// and what its runtime keeps (serviceRuntime.ts): the service types it was seen with (kept on disk,
// so one that left the registry is known as gone after a restart too) and its endpoints' last
// probes. A service type registered twice by the provider is one service (active when any is). Pure.
import type { ServiceEntry } from '../probes/watch/tokenParse.js';
import { readView, type EntryInputs } from './inputs.js';
import type { EndpointProbeView, ServiceView, WatchEntry, WatchedProviderView, WatchState } from './types.js';
import { unread } from './words.js';

export const SERVICES_READ = 'watchServices';

/** What the runtime keeps per provider entry. */
export interface ProviderLocal {
  /** Service types seen registered (undefined: the record is not loaded yet). */
  seen?: readonly string[];
  /** The last probe of each service type's endpoint. */
  endpoints?: Readonly<Record<string, EndpointProbeView>>;
}

/** The provider's services in the registry (of its type), one per service type. */
export function servicesOf(registry: readonly ServiceEntry[], e: WatchEntry): Map<string, ServiceEntry> {
  const out = new Map<string, ServiceEntry>();
  for (const s of registry) {
    if (s.provider !== e.address || (e.serviceType !== undefined && s.serviceType !== e.serviceType)) continue;
    const had = out.get(s.serviceType);
    if (!had || (!had.active && s.active)) out.set(s.serviceType, s);
  }
  return out;
}

export function providerView(i: EntryInputs): WatchedProviderView {
  const v: WatchedProviderView = { ...i.entry, kind: 'provider', ...readView(i) };
  const registry = i.networkReads[SERVICES_READ]?.data as ServiceEntry[] | undefined;
  const local = i.local as ProviderLocal | undefined;
  // Before the record of what was seen is loaded nothing is known; without the registry, only what was seen.
  if (local?.seen === undefined) return v;
  if (!registry) {
    v.services = local.seen.map((serviceType) => ({ serviceType }));
    return v;
  }
  const now = servicesOf(registry, i.entry);
  const services: ServiceView[] = [...now.values()].map((s) => {
    const probe = local.endpoints?.[s.serviceType];
    return {
      serviceType: s.serviceType,
      registered: true,
      active: s.active,
      endpoint: s.endpoint,
      ...(probe && i.entry.probeEndpoint && { probe }),
    };
  });
  for (const t of local.seen) if (!now.has(t)) services.push({ serviceType: t, registered: false });
  v.services = services.sort((a, b) => (a.serviceType < b.serviceType ? -1 : 1));
  return v;
}

export function providerState(v: WatchedProviderView): WatchState {
  const pending = unread(v);
  if (pending && v.services === undefined) return pending;
  if (v.services === undefined) return { status: 'unknown', text: 'not read yet' };
  if (v.services.length === 0)
    return { status: 'degraded', text: `no service registered${v.serviceType ? ` of type ${v.serviceType}` : ''}` };
  let status: WatchState['status'] = 'up';
  const worse = (s: WatchState['status']) => {
    if (s === 'down' || (s === 'degraded' && status === 'up')) status = s;
  };
  const parts = v.services.map((s) => {
    if (s.registered === undefined) return `${s.serviceType}: not read`;
    if (!s.registered) {
      worse('down');
      return `${s.serviceType}: gone from the registry`;
    }
    if (!s.active) {
      worse('degraded');
      return `${s.serviceType}: inactive`;
    }
    if (!s.probe) return `${s.serviceType}: active`;
    if (s.probe.refused) {
      worse('degraded');
      return `${s.serviceType}: active, ${s.probe.problem}`;
    }
    if (!s.probe.up) {
      worse('down');
      return `${s.serviceType}: active, endpoint down (${s.probe.problem ?? 'no answer'})`;
    }
    const ms = s.probe.durationSeconds === undefined ? '' : ` in ${Math.round(s.probe.durationSeconds * 1000)} ms`;
    const note = s.probe.problem ? `, ${s.probe.problem}` : '';
    return `${s.serviceType}: active, endpoint answered ${s.probe.status ?? ''}${ms}${note}`;
  });
  if (pending) {
    worse('degraded');
    parts.push(pending.text);
  }
  return { status, text: parts.join('; ') };
}
