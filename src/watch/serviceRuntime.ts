// The services kind's runtime: keeps the service types each watched provider was seen with (the
// record on disk, serviceRecord.ts) from the registry reads, and, for entries with probeEndpoint,
// GETs each active service's registered endpoint once per interval (http/endpointProbe.ts: public
// addresses only unless the entry allows private ones), at most 8 at once. Its data per entry is
// what the view reads as `local` (serviceViews.ts ProviderLocal). A read that failed changes
// nothing it keeps.
import { probeEndpoint, type EndpointProbeOptions, type EndpointProbeResult } from '../http/endpointProbe.js';
import type { ServiceEntry } from '../probes/watch/tokenParse.js';
import type { WatchKindRuntime, WatchRuntimeContext } from './kind.js';
import { loadRecord, recordKey, saveRecord, type SeenRecord } from './serviceRecord.js';
import { servicesOf, SERVICES_READ, type ProviderLocal } from './serviceViews.js';
import type { EndpointProbeView, WatchEntry } from './types.js';
import { VERSION } from '../version.js';

const MAX_PROBES_IN_FLIGHT = 8;

type Probe = (url: string, opts: EndpointProbeOptions) => Promise<EndpointProbeResult>;

export function serviceRuntime(probe: Probe = probeEndpoint): WatchKindRuntime {
  return new ServiceRuntime(probe);
}

class ServiceRuntime implements WatchKindRuntime {
  private ctx: WatchRuntimeContext | undefined;
  private timer: NodeJS.Timeout | undefined;
  private record: SeenRecord = new Map();
  private keepOff = false;
  private dirty = false;
  private saving: Promise<void> = Promise.resolve();
  /** The registry data each entry was last folded in from (a re-read that changed nothing is the same object). */
  private readonly folded = new Map<string, unknown>();
  /** By entry name, then service type. */
  private readonly endpoints = new Map<string, Record<string, EndpointProbeView>>();
  private readonly nextProbe = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private queue: Array<() => Promise<void>> = [];
  private kept: ReadonlyMap<string, ProviderLocal> = new Map();
  private changed = true;

  constructor(private readonly probe: Probe) {}

  start(c: WatchRuntimeContext): void {
    this.ctx = c;
    const loaded = loadRecord(c.stateDir(), Date.now());
    this.record = loaded.record;
    this.keepOff = loaded.keepOff === true;
    if (loaded.problem) c.log('warn', {}, loaded.problem);
    const every = Math.min(2_000, Math.max(100, Math.floor(c.intervalMs() / 2)));
    const loop = () => {
      try {
        this.tick();
      } catch (err) {
        c.log('warn', { err: (err as Error).message }, 'services watch tick failed');
      }
      this.timer = setTimeout(loop, every).unref();
    };
    loop();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.queue = [];
    await Promise.all(this.inFlight);
    this.save();
    await this.saving;
  }

  local(): ReadonlyMap<string, ProviderLocal> {
    if (!this.changed) return this.kept;
    this.changed = false;
    const out = new Map<string, ProviderLocal>();
    for (const e of this.providers()) {
      const seen = this.record.get(recordKey(e));
      const endpoints = this.endpoints.get(e.name);
      out.set(e.name, { ...(seen && { seen }), ...(endpoints && { endpoints }) });
    }
    this.kept = out;
    return out;
  }

  private providers(): WatchEntry[] {
    return (this.ctx?.entries() ?? []).filter((e) => e.kind === 'provider');
  }

  private tick(): void {
    const reads = this.ctx!.fanOut()?.get(SERVICES_READ) ?? [];
    const registry = new Map(reads.filter((r) => r.data !== undefined).map((r) => [r.entity.key, r.data]));
    this.fold(registry);
    this.probeDue(registry);
    this.save();
  }

  /** Adds the service types each provider has now to what it was seen with; forgets entries removed. */
  private fold(registry: ReadonlyMap<string, unknown>): void {
    const entries = this.providers();
    const keys = new Set(entries.map(recordKey));
    for (const k of this.record.keys())
      if (!keys.has(k)) {
        this.record.delete(k);
        this.dirty = true;
      }
    for (const e of entries) {
      const key = recordKey(e);
      if (!this.record.has(key)) {
        this.record.set(key, []);
        this.dirty = this.changed = true;
      }
      const data = registry.get(e.network) as ServiceEntry[] | undefined;
      if (data === undefined || this.folded.get(key) === data) continue;
      this.folded.set(key, data);
      for (const t of servicesOf(data, e).keys()) {
        const seen = this.record.get(key)!;
        if (seen.includes(t)) continue;
        this.record.set(key, [...seen, t].sort());
        this.dirty = this.changed = true;
      }
    }
  }

  private probeDue(registry: ReadonlyMap<string, unknown>): void {
    const now = this.ctx!.now();
    for (const e of this.providers()) {
      const data = registry.get(e.network) as ServiceEntry[] | undefined;
      if (!e.probeEndpoint || !data || now < (this.nextProbe.get(e.name) ?? 0)) continue;
      this.nextProbe.set(e.name, now + this.ctx!.intervalMs());
      for (const s of servicesOf(data, e).values()) if (s.active) this.queue.push(() => this.probeOne(e, s));
    }
    this.pump();
  }

  private async probeOne(e: WatchEntry, s: ServiceEntry): Promise<void> {
    const r = await this.probe(s.endpoint, {
      allowPrivate: e.allowPrivateEndpoints === true,
      userAgent: `ledger-fleet-exporter/${VERSION} service probe`,
    });
    const { address: _address, ...view } = r;
    this.endpoints.set(e.name, { ...this.endpoints.get(e.name), [s.serviceType]: view });
    this.changed = true;
  }

  private pump(): void {
    while (this.inFlight.size < MAX_PROBES_IN_FLIGHT && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const p: Promise<void> = job()
        .catch(() => undefined)
        .finally(() => {
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }

  private save(): void {
    const dir = this.ctx?.stateDir();
    if (!this.dirty || !dir || this.keepOff) return;
    this.dirty = false;
    const snapshot = new Map(this.record);
    this.saving = this.saving.then(() =>
      saveRecord(dir, snapshot, Date.now()).catch((err: unknown) => {
        this.dirty = true; // tried again at the next tick
        this.ctx?.log('warn', { err: (err as Error).message }, 'could not write the record of services seen');
      }),
    );
  }
}
