// A feature that is not configured costs nothing: the built CLI, run on a 1-node config without
// `alerting:`, `watch:` and `agentPlatform:`, and with no page or API asked for, loads none of the
// alerting section's schema (receiver kinds, maintenance windows and node-cron), the alerting
// engine, notifier and silence keeper, the Alertmanager API's answers, the Telegram command
// pollers, the silence replication, the fan-out and watch, the `watch:` section's schema and the
// watch kinds (their reads, views, words, alerts and panels), the agent platform's key check, or
// the status pages' code, and starts no timer from them; nor the parts of its dependencies it
// never uses (undici's fetch and WebSocket, Node's own bundled undici, prom-client's cluster
// aggregator, @opentelemetry/api). The same daemon with these sections (and a page and the API
// asked for) loads them, so the check sees what it looks for; so does one that is given a `watch:`
// section by a reload.
// The child reports through a preloaded hook (test/fixtures/loaded-modules.mjs).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/fleet.js';
import { mixedFleetSpecs } from '../../src/sim/specs.js';
import { requireBuiltCli, startDaemonProcess } from '../support/cliProcess.js';
import { writeAtomically } from '../support/lifecycleFiles.js';
import { waitFor } from '../support/processes.js';

const HOOK = fileURLToPath(new URL('../fixtures/loaded-modules.mjs', import.meta.url));

/** The `watch:` section's schema and the watch kinds: their registry, reads, views, words, alerts and panels. */
const WATCH_KIND_MODULES = [
  'config/sections/watch.js',
  'watch/kinds/registry.js',
  'watch/kinds/account.js',
  'watch/kinds/validator.js',
  'probes/watch/balance.js',
  'probes/watch/entities.js',
  'watch/entryViews.js',
  'watch/families.js',
  'watch/words.js',
  'watch/panels/account.js',
  'alerting/rules/definitions/watchEntries.js',
];

/** Modules of features a 1-node daemon without them must not load (paths under dist/). */
const FEATURE_MODULES = [
  'config/sections/alerting.js',
  'alerting/configSchema.js',
  'alerting/settings.js',
  'alerting/receivers/registry.js',
  'alerting/receivers/email.js',
  'alerting/receivers/telegram.js',
  'alerting/maintenance/config.js',
  'alerting/maintenance/cron.js',
  'alerting/live.js',
  'alerting/runtime.js',
  'alerting/notify/dispatcher.js',
  'alerting/rules/engine.js',
  'alerting/rules/definitions/index.js',
  'alerting/maintenance/schedule.js',
  'alerting/silences/keeper.js',
  'alerting/silences/persistence.js',
  'alerting/silences/store.js',
  'alerting/api/handlers.js',
  'alerting/api/alertsV2.js',
  'alerting/api/silencesV2.js',
  'alerting/telegram/pollers.js',
  'alerting/telegram/poller.js',
  'alerting/telegram/actions.js',
  'alerting/peers/replicator.js',
  'probe/fanOutComponent.js',
  'probe/fanOut.js',
  'watch/component.js',
  'watch/views.js',
  ...WATCH_KIND_MODULES,
  'agent/lifecycle.js',
  'agent/platform.js',
  'agent/keySource.js',
  'status/routes.js',
  'status/fleetPage.js',
  'status/nodePage.js',
  'status/script.js',
];
/** Dependencies' modules no daemon uses (their packages' index files load them), by their path's end or node: name. */
const UNUSED_DEPENDENCY_MODULES = [
  '/node_modules/undici/index.js',
  '/node_modules/undici/lib/web/fetch/index.js',
  '/node_modules/undici/lib/web/websocket/websocket.js',
  'node:internal/deps/undici/undici',
  '/node_modules/prom-client/index.js',
  '/node_modules/prom-client/lib/cluster.js',
  '/node_modules/@opentelemetry/api/dist/index.cjs',
];
/** Dependencies' modules only a configured feature uses (node-cron: maintenance windows of alerting:). */
const FEATURE_DEPENDENCY_MODULES = ['/node_modules/node-cron/dist/node-cron.js'];
/** Dependencies' modules the daemon does use (so the check above sees CommonJS files at all). */
const USED_DEPENDENCY_MODULES = [
  '/node_modules/undici/lib/dispatcher/client.js',
  '/node_modules/prom-client/lib/registry.js',
];

/** Folders whose code may start no timer in such a daemon. */
const FEATURE_TIMER_PLACES = /\/dist\/(alerting\/|probe\/fanOut|watch\/|status\/routes)/;

let fleet: SimFleet;
let dir: string;

beforeAll(async () => {
  requireBuiltCli();
  fleet = await SimFleet.start(mixedFleetSpecs(1), { layout: 'port-per-node' });
  dir = mkdtempSync(join(tmpdir(), 'lfe-features-'));
});

afterAll(async () => {
  await fleet?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  /** Our own modules, as paths under dist/. */
  modules: string[];
  /** Every module: file URLs and node: names. */
  all: string[];
  timerPlaces: string[];
}

/** A config of the one node plus `extra`. */
function configText(name: string, extra: string): string {
  const node = fleet.nodes[0]!;
  return (
    `listen: 127.0.0.1:0\n` +
    `defaults: {interval: 500ms, timeout: 400ms}\n` +
    `nodes:\n  - {name: n1, url: "${node.url}", network: ${node.network}}\n` +
    `evidence: {dir: "${join(dir, `${name}-evidence`)}"}\n${extra}`
  );
}

/** A `watch:` section of one account on the node's network. */
const watchedAccount = () =>
  `watch:\n  interval: 1s\n  accounts:\n` +
  `    - {name: acct, address: ${'ab'.repeat(32)}, network: ${fleet.nodes[0]!.network}}\n`;

/**
 * Runs the CLI on a config of the one node plus `extra` for a few seconds; `pages` are fetched
 * first, then `during` runs (with the daemon's URL and its config file).
 */
async function run(
  name: string,
  extra: string,
  pages: string[] = [],
  during?: (url: string, config: string) => Promise<void>,
): Promise<Run> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, configText(name, extra));
  const loaded = join(dir, `${name}.modules`);
  const timers = join(dir, `${name}.timers`);
  writeFileSync(loaded, '');
  writeFileSync(timers, '');
  const daemon = await startDaemonProcess(['--config', config, '--log-format', 'json'], {
    env: { ...process.env, NODE_OPTIONS: `--import ${HOOK}`, LOADED_MODULES_FILE: loaded, TIMERS_FILE: timers },
  });
  try {
    for (const page of pages) expect((await fetch(`${daemon.url}${page}`)).status).toBe(200);
    await during?.(daemon.url, config);
    // A few polls and metrics scrapes: what runs at steady state, not only at start-up.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 500));
      expect((await fetch(`${daemon.url}/metrics`)).status).toBe(200);
    }
  } finally {
    await daemon.stop();
  }
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return {
    all: lines(loaded),
    modules: lines(loaded).flatMap((u) => (u.includes('/dist/') ? [u.slice(u.lastIndexOf('/dist/') + 6)] : [])),
    timerPlaces: lines(timers),
  };
}

describe('a 1-node daemon', () => {
  it('without alerting, watch or a page asked for: none of their modules loaded, none of their timers', async () => {
    const r = await run('bare', '');
    // The daemon itself was seen: its modules and its own timers (the scheduler's) are reported.
    expect(r.modules).toContain('daemon/pipeline.js');
    expect(r.timerPlaces.some((f) => f.includes('/dist/schedule/'))).toBe(true);
    expect(r.modules.filter((m) => FEATURE_MODULES.includes(m))).toEqual([]);
    expect(r.timerPlaces.filter((f) => FEATURE_TIMER_PLACES.test(f))).toEqual([]);
    const seen = (end: string) => r.all.some((m) => m.endsWith(end));
    expect(USED_DEPENDENCY_MODULES.filter(seen)).toEqual(USED_DEPENDENCY_MODULES);
    expect(UNUSED_DEPENDENCY_MODULES.filter(seen)).toEqual([]);
    expect(FEATURE_DEPENDENCY_MODULES.filter(seen)).toEqual([]);
  });

  it('with alerting (Telegram commands, peers), watch, agent platform, a page and the API: loads them', async () => {
    const token = join(dir, 'bot-token');
    writeFileSync(token, 'not-a-token\n');
    // Both outbound addresses refuse connections (loopback port 1): the pollers and the replicator
    // only need to be built.
    const telegram =
      `  receivers:\n    - name: tg\n      telegram:\n        botTokenFile: "${token}"\n` +
      `        chatId: "-100123"\n        apiUrl: https://127.0.0.1:1\n        commands: {users: [1]}\n`;
    const r = await run(
      'full',
      `alerting:\n  stateDir: "${join(dir, 'alerting')}"\n  evaluationInterval: 1s\n${telegram}` +
        `  peers:\n    - url: http://127.0.0.1:1\n${watchedAccount()}` +
        `agentPlatform: {baseUrl: "http://127.0.0.1:1"}\n`,
      ['/', '/api/v2/status'],
    );
    expect(r.modules.filter((m) => FEATURE_MODULES.includes(m)).sort()).toEqual([...FEATURE_MODULES].sort());
    expect(FEATURE_DEPENDENCY_MODULES.filter((end) => r.all.some((m) => m.endsWith(end)))).toEqual(
      FEATURE_DEPENDENCY_MODULES,
    );
    expect(r.timerPlaces.some((f) => f.includes('/dist/probe/fanOut.js'))).toBe(true);
    expect(r.timerPlaces.some((f) => f.includes('/dist/alerting/'))).toBe(true);
  });

  it('given a `watch:` section by a reload: loads the watch kinds then, and /metrics shows the entry', async () => {
    const r = await run('reloaded', '', [], async (url, config) => {
      const metrics = async () => (await fetch(`${url}/metrics`)).text();
      expect(await metrics()).not.toContain('ledger_watch_');
      writeAtomically(config, configText('reloaded', watchedAccount()));
      await waitFor(
        'the watched account read after the reload',
        async () => (await metrics()).includes('ledger_watch_account_balance_tokens{network='),
        { timeoutMs: 15_000 },
      );
    });
    expect(r.modules.filter((m) => WATCH_KIND_MODULES.includes(m)).sort()).toEqual([...WATCH_KIND_MODULES].sort());
    expect(r.modules).toEqual(expect.arrayContaining(['probe/fanOut.js', 'watch/component.js']));
  });
});
