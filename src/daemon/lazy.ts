// A component whose module is loaded only once the config asks for its feature: until then the
// daemon holds none of its code, timers or state (a small fleet pays for what it uses). It is
// loaded at open when the first config needs it, or at the first reload that does; once loaded it
// stays, as it would have run from the start. Until then `idle` stands in for it (what the
// feature shows while off, such as empty families). Only the hooks a loaded component may need
// after assembly are forwarded: collectors and routes are fixed at assembly, so a lazy component
// must not have them.
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { AssemblyContext, DaemonComponent, DaemonContext } from './component.js';

export interface LazyComponentSpec {
  name: string;
  /** Whether a config needs the feature. */
  needed(config: ExporterConfig): boolean;
  /** Imports the feature's module and builds its component. */
  load(): Promise<DaemonComponent>;
  /** What the daemon sees while the feature is not loaded. */
  idle?: Pick<DaemonComponent, 'addToSnapshot'>;
}

export interface LazyComponent extends DaemonComponent {
  /** The loaded component, or undefined while its feature was never needed. */
  loaded(): DaemonComponent | undefined;
  /** Settles when a load that a reload started is done (tests, shutdown). */
  settled(): Promise<void>;
}

export function lazyComponent(spec: LazyComponentSpec): LazyComponent {
  let inner: DaemonComponent | undefined;
  let assembly: AssemblyContext | undefined;
  let running: DaemonContext | undefined;
  let halted = false;
  let loading: Promise<void> = Promise.resolve();

  const bring = async (started: boolean) => {
    const c = await spec.load();
    if (halted) return;
    await c.open?.(assembly!);
    inner = c;
    if (started && running) await c.start?.(running);
  };

  return {
    name: spec.name,
    loaded: () => inner,
    settled: () => loading,
    async open(ctx) {
      assembly = ctx;
      if (spec.needed(ctx.initial)) await bring(false);
    },
    addToSnapshot(snap) {
      if (inner) inner.addToSnapshot?.(snap);
      else spec.idle?.addToSnapshot?.(snap);
    },
    onProbeResult(target, result, node) {
      inner?.onProbeResult?.(target, result, node);
    },
    async start(ctx) {
      running = ctx;
      await inner?.start?.(ctx);
    },
    onReload(diff) {
      if (inner) return inner.onReload?.(diff);
      if (halted || !spec.needed(diff.next)) return;
      loading = loading
        .then(() => (inner ? undefined : bring(true)))
        .catch((err: Error) =>
          (running ?? assembly)?.logger.error({ component: spec.name }, `${spec.name} failed to start: ${err.message}`),
        );
    },
    onReloadRejected(problems) {
      inner?.onReloadRejected?.(problems);
    },
    halt() {
      halted = true;
      inner?.halt?.();
    },
    async stop() {
      await loading;
      await inner?.stop?.();
    },
    async close() {
      await loading;
      await inner?.close?.();
    },
  };
}
