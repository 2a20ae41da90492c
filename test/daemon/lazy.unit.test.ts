// lazyComponent: the feature's module is loaded only once a config needs it (at open, or at the
// first reload that does), then every hook reaches the loaded component; until then the idle
// stand-in answers, and a daemon halting never loads it.
import { describe, expect, it } from 'vitest';
import type { ConfigDiff } from '../../src/config/diff.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { AssemblyContext, DaemonComponent, DaemonContext } from '../../src/daemon/component.js';
import { lazyComponent } from '../../src/daemon/lazy.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';

type Config = ExporterConfig & { wanted?: boolean };

function harness(initial: Config) {
  const calls: string[] = [];
  let loads = 0;
  let current = initial;
  const inner: DaemonComponent = {
    name: 'inner',
    open: () => void calls.push('open'),
    start: () => void calls.push('start'),
    addToSnapshot: (snap) => void ((snap as { mark?: string }).mark = 'inner'),
    onReload: () => void calls.push('reload'),
    halt: () => void calls.push('halt'),
    stop: () => void calls.push('stop'),
    close: () => void calls.push('close'),
  };
  const lazy = lazyComponent({
    name: 'feature',
    needed: (c) => (c as Config).wanted === true,
    load: async () => {
      loads++;
      await Promise.resolve();
      return inner;
    },
    idle: { addToSnapshot: (snap) => void ((snap as { mark?: string }).mark = 'idle') },
  });
  const assembly = { initial, config: () => current } as unknown as AssemblyContext;
  const running = { config: () => current, logger: { error: () => undefined } } as unknown as DaemonContext;
  const mark = () => {
    const snap = {} as FleetSnapshot & { mark?: string };
    lazy.addToSnapshot!(snap);
    return snap.mark;
  };
  const reload = (next: Config) => {
    const prev = current;
    current = next;
    const nodes = { added: [], removed: [], changed: [], unchanged: [] };
    lazy.onReload!({ prev, next, nodes } as unknown as ConfigDiff);
  };
  return { lazy, calls, loads: () => loads, assembly, running, mark, reload };
}

const config = (wanted: boolean) => ({ nodes: [], wanted }) as unknown as Config;

describe('lazyComponent', () => {
  it('loads nothing for a config that does not need it, and shows the idle stand-in', async () => {
    const h = harness(config(false));
    await h.lazy.open!(h.assembly);
    await h.lazy.start!(h.running);
    h.reload(config(false));
    await h.lazy.settled();
    expect(h.loads()).toBe(0);
    expect(h.lazy.loaded()).toBeUndefined();
    expect(h.mark()).toBe('idle');
    await h.lazy.stop!();
    await h.lazy.close!();
    expect(h.calls).toEqual([]);
  });

  it('loads at open when the first config needs it, and forwards every hook', async () => {
    const h = harness(config(true));
    await h.lazy.open!(h.assembly);
    await h.lazy.start!(h.running);
    expect(h.mark()).toBe('inner');
    h.reload(config(true));
    h.lazy.halt!();
    await h.lazy.stop!();
    await h.lazy.close!();
    expect(h.loads()).toBe(1);
    expect(h.calls).toEqual(['open', 'start', 'reload', 'halt', 'stop', 'close']);
  });

  it('loads, opens and starts at the first reload that needs it, once', async () => {
    const h = harness(config(false));
    await h.lazy.open!(h.assembly);
    await h.lazy.start!(h.running);
    h.reload(config(true));
    h.reload(config(true));
    await h.lazy.settled();
    expect(h.loads()).toBe(1);
    expect(h.lazy.loaded()).toBeDefined();
    expect(h.mark()).toBe('inner');
    // The second reload arrived while loading: the component opened on the config of that moment.
    expect(h.calls).toEqual(['open', 'start']);
    h.reload(config(false));
    expect(h.calls).toEqual(['open', 'start', 'reload']);
  });

  it('does not load for a reload once the daemon halts', async () => {
    const h = harness(config(false));
    await h.lazy.open!(h.assembly);
    await h.lazy.start!(h.running);
    h.lazy.halt!();
    h.reload(config(true));
    await h.lazy.stop!();
    expect(h.loads()).toBe(0);
  });
});
