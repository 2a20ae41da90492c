// A watch kind added at run time as one module defined in this file and one registration line, no
// other file naming it: its list under watch: is parsed from YAML (with file:line:col errors),
// read from the simulator through the real daemon, exported on /metrics, shown on the status page
// and /api/v1/watch, and alerted on by the built-in engine (one page to fire, one to resolve).
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byEntry, perEntry, WATCH_GROUP } from '../../src/alerting/rules/definitions/watchSupport.js';
import { ConfigError, formatProblem, parseConfig } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { standardComponents } from '../../src/daemon/features.js';
import { createLogger } from '../../src/logger.js';
import { parseAmount } from '../../src/probes/parse.js';
import { watchInterval, watchedOf } from '../../src/probes/watch/entities.js';
import { SimFleet } from '../../src/sim/index.js';
import { watchGauge } from '../../src/watch/families.js';
import { readView, tokens } from '../../src/watch/inputs.js';
import { defineWatchKind } from '../../src/watch/kind.js';
import { registerWatchKind, unregisterWatchKind } from '../../src/watch/kinds/registry.js';
import { entriesOf, type WatchedEntryView } from '../../src/watch/types.js';
import { closeAlertingRig, onlyRules, startWebhook, type WebhookBody } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

// ---- the kind: one module's worth ----
interface StakerView extends WatchedEntryView {
  minStake?: number;
  stakeTokens?: number;
}

const stakerKind = defineWatchKind<StakerView>({
  kind: 'staker',
  list: 'stakers',
  description: 'Addresses whose stake to watch (test kind).',
  fields: { minStake: z.number().nonnegative().optional().meta({ description: 'Tokens; below it alerts.' }) },
  resolve: (raw) => (raw.minStake === undefined ? {} : { minStake: raw.minStake }),
  reads: {
    testStakerStake: {
      target: 'entities',
      method: 'getStake',
      entities: watchedOf('staker'),
      intervalMs: watchInterval,
      parse: (result) => parseAmount(result, 'getStake'),
      metrics: [],
    },
  },
  view: (i) => {
    const stake = i.own.testStakerStake?.data as bigint | undefined;
    return {
      ...i.entry,
      ...readView(i),
      ...(stake !== undefined && { stakeTokens: tokens(stake, i.decimals) }),
    };
  },
  families: [
    watchGauge<StakerView>('staker', 'ledger_test_staker_stake_tokens', 'Stake, in tokens.', (v) => v.stakeTokens),
  ],
  state: (v) =>
    v.stakeTokens === undefined
      ? { status: 'unknown', text: 'not read yet' }
      : v.minStake !== undefined && v.stakeTokens < v.minStake
        ? { status: 'degraded', text: `stake ${v.stakeTokens} below ${v.minStake}` }
        : { status: 'up', text: `staking ${v.stakeTokens}` },
  alerts: [
    {
      name: 'LedgerTestStakeLow',
      group: WATCH_GROUP,
      scope: 'watch',
      defaults: { severity: 'warning', forMs: 0, keepFiringForMs: 0 },
      promql: () => byEntry('staker', 'ledger_test_staker_stake_tokens < 1'),
      summary: () => 'Staker {{ $labels.name }} is low',
      description: () => 'Staker {{ $labels.name }} holds {{ $value }} tokens of stake.',
      evaluate: (ctx) =>
        perEntry(entriesOf(ctx.snapshot.watch, 'staker') as StakerView[], (v) =>
          v.minStake === undefined
            ? false
            : v.stakeTokens === undefined
              ? undefined
              : v.stakeTokens < v.minStake && v.stakeTokens,
        ),
    },
  ],
});
registerWatchKind(stakerKind);
// ---- end of the kind ----

const UNIT = 10n ** 9n;
let fleet: SimFleet;
let daemon: Daemon;
let receiver: Server;
let dir: string;
let staker: string;
const pages: WebhookBody[] = [];

const paged = (status: string) =>
  pages.filter((p) => p.status === status && p.alerts?.some((a) => a.labels.alertname === 'LedgerTestStakeLow')).length;
const alerts = async () =>
  (
    (await (await fetch(`${daemon.url}/api/alerts`)).json()) as { alerts: Array<{ name: string; state: string }> }
  ).alerts.filter((a) => a.name === 'LedgerTestStakeLow');
const metrics = async () => (await fetch(`${daemon.url}/metrics`)).text();

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-watch-kind-'));
  fleet = await SimFleet.start(
    [
      { name: 'n-1', network: 'net' },
      { name: 'n-2', network: 'net' },
    ],
    { blockTimeMs: 100, epochBlocks: 25 },
  );
  staker = fleet.chain('net').watchTargets().validator;
  // 1,000 tokens of stake over the minimum to start with.
  const stake = fleet.chain('net').ledger().validators.get(staker)!;
  const minStake = Number((stake.selfStake + stake.delegated) / UNIT) - 1_000;
  const hook = await startWebhook((body) => void pages.push(body));
  receiver = hook.server;
  const yaml = [
    'listen: 127.0.0.1:0',
    'nodes:',
    ...fleet.nodes.flatMap((n) => [
      `  - name: ${n.name}`,
      `    url: ${n.url}`,
      '    network: net',
      '    interval: 200ms',
    ]),
    'networks:',
    '  net: {decimals: 9, epochBlocks: 25}',
    'watch:',
    '  interval: 200ms',
    '  stakers:',
    `    - {name: st, address: ${staker}, network: net, minStake: ${minStake}}`,
  ].join('\n');
  const parsed = parseConfig(`${yaml}\n`, { file: 'fleet.yaml', env: {} });
  const config = {
    ...parsed,
    evidence: { ...parsed.evidence, dir: path.join(dir, 'evidence') },
    alerting: {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 50,
      runbookBase: 'alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerTestStakeLow: { enabled: true, forMs: 0, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['alertname'],
        groupWaitMs: 0,
        groupIntervalMs: 100,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['hook'],
      },
      receivers: [{ name: 'hook', kind: 'webhook' as const, url: hook.url, headers: {}, timeoutMs: 5_000 }],
      maintenance: [],
    },
  };
  const logger = createLogger({ level: 'silent' });
  daemon = await startDaemon(config, {
    logger,
    evidence: false,
    defaultMetrics: false,
    components: standardComponents(logger),
  });
  await waitFor('the first read', () => entriesOf(daemon.snapshot().watch, 'staker')[0]?.lastSuccessSeconds, {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
}, 40_000);

afterAll(async () => {
  await closeAlertingRig({ daemon, fleet, receiver, dir });
  unregisterWatchKind('staker');
});

describe('a watch kind registered at run time', () => {
  it('is parsed from its own list under watch:, with file:line:col errors', () => {
    const config = daemon.config();
    expect(config.watch?.entries).toEqual([
      expect.objectContaining({ kind: 'staker', name: 'st', address: staker, network: 'net' }),
    ]);
    let problems: string[] = [];
    try {
      parseConfig(
        'nodes:\n  - {name: a, url: "http://10.0.0.1:9710"}\nwatch:\n  stakers:\n    - {name: x, address: 0x1, minStake: -1}\n',
        { file: 'bad.yaml', env: {} },
      );
    } catch (e) {
      if (e instanceof ConfigError) problems = e.problems.map(formatProblem);
    }
    expect(problems.some((p) => p.startsWith('bad.yaml:5:') && p.includes('address'))).toBe(true);
    expect(problems.some((p) => p.startsWith('bad.yaml:5:') && p.includes('minStake'))).toBe(true);
  });

  it('is read through the nodes and exported on /metrics with its own and the common families', async () => {
    const text = await metrics();
    const L = `network="net",name="st",staker="${staker}"`;
    expect(text).toMatch(new RegExp(`^ledger_test_staker_stake_tokens\\{${L}\\} \\d+`, 'm'));
    expect(text).toContain(`ledger_watch_consecutive_failures{${L}} 0`);
    expect(text).toMatch(new RegExp(`^ledger_watch_last_success_timestamp_seconds\\{${L}\\} \\d`, 'm'));
  });

  it('is shown on the status page and in /api/v1/watch, in its own words', async () => {
    const api = (await (await fetch(`${daemon.url}/api/v1/watch`)).json()) as {
      stakers: Array<{ name: string; status: string; text: string }>;
    };
    expect(api.stakers).toEqual([expect.objectContaining({ name: 'st', status: 'up' })]);
    expect(api.stakers[0]!.text).toMatch(/^staking \d+/);
    const page = await (await fetch(`${daemon.url}/`)).text();
    expect(page).toContain('<span class="tag">staker</span>');
    expect(page).toMatch(/staking \d+/);
  });

  it('fires once when the chain says so, and resolves once when it no longer does', async () => {
    expect(await alerts()).toEqual([]);
    const chain = fleet.chain('net');
    const v = chain.ledger().validators.get(staker)!;
    const before = v.selfStake + v.delegated;
    chain.validator(staker, { stake: before - 2_000n * UNIT });
    await waitFor('firing', async () => (await alerts())[0]?.state === 'firing', { timeoutMs: 20_000, intervalMs: 50 });
    await waitFor('paged', () => paged('firing') === 1, { timeoutMs: 10_000, intervalMs: 50 });
    const api = (await (await fetch(`${daemon.url}/api/v1/watch`)).json()) as { stakers: Array<{ status: string }> };
    expect(api.stakers[0]!.status).toBe('degraded');
    chain.validator(staker, { stake: before });
    await waitFor('resolved', async () => (await alerts()).length === 0, { timeoutMs: 20_000, intervalMs: 50 });
    await waitFor('resolve paged', () => paged('resolved') === 1, { timeoutMs: 10_000, intervalMs: 50 });
    await new Promise((r) => setTimeout(r, 600));
    expect([paged('firing'), paged('resolved')]).toEqual([1, 1]);
  });
});
