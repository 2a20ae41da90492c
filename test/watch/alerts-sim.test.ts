// The watch alerts end to end over loopback: the simulator's ledger (epochs of 25 blocks of 50 ms,
// so every seat has a slot in each), the exporter reading it through its nodes, and the daemon's
// own built-in alerting paging a webhook. Each fault of the control API fires its alert and pages
// once; healing it resolves the alert and sends the resolve once.
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingComponent, type AlertingComponent } from '../../src/alerting/component.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { simulatedFleetConfig } from '../../src/demo/fleet.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { SimFleet } from '../../src/sim/index.js';
import { entriesOf } from '../../src/watch/types.js';
import { watchComponent } from '../../src/watch/component.js';
import { closeAlertingRig, onlyRules, startWebhook, type WebhookBody } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

const NAMES = [
  'LedgerValidatorInactive',
  'LedgerValidatorOffline',
  'LedgerValidatorJailed',
  'LedgerValidatorCommissionChanged',
  'LedgerMinerInactive',
  'LedgerMinerCheckinMissed',
  'LedgerMinerRewardReduced',
  'LedgerAccountBalanceLow',
  'LedgerUnbondingClaimable',
  'LedgerWatchReadFailing',
];
const UNIT = 10n ** 9n;

let fleet: SimFleet;
let daemon: Daemon;
let alerting: AlertingComponent;
let receiver: Server;
let dir: string;
const pages: WebhookBody[] = [];
let t: { validator: string; miner: string; account: string };

const state = (name: string) => alerting.statusAlerts()?.find((a) => a.name === name)?.state;
/** The webhook pages for one alert, by status. */
const paged = (name: string, status: string) =>
  pages.filter((p) => p.status === status && p.alerts?.some((a) => a.labels.alertname === name)).length;
/** How many times each alert was seen to fire and resolve: each one is paged once. */
const seen = new Map<string, number>();
const notified = async (name: string, status: 'firing' | 'resolved') => {
  const key = `${name} ${status}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  await waitFor(`${name} ${status} paged`, () => paged(name, status) === seen.get(key), {
    timeoutMs: 10_000,
    intervalMs: 50,
  });
};
const firing = async (name: string) => {
  await waitFor(`${name} firing`, () => state(name) === 'firing', { timeoutMs: 20_000, intervalMs: 50 });
  await notified(name, 'firing');
};
const resolved = async (name: string) => {
  await waitFor(`${name} resolved`, () => state(name) === undefined, { timeoutMs: 30_000, intervalMs: 50 });
  await notified(name, 'resolved');
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-watch-alerts-'));
  fleet = await SimFleet.start(
    [
      { name: 'n-1', network: 'net' },
      { name: 'n-2', network: 'net' },
    ],
    { blockTimeMs: 50, epochBlocks: 25, unbondingBlocks: 1_000 },
  );
  const chain = fleet.chain('net');
  t = chain.watchTargets();
  const commissionBps = chain.ledger().validators.get(t.validator)!.commissionBps;
  const hook = await startWebhook((body) => void pages.push(body));
  receiver = hook.server;
  const base = simulatedFleetConfig(fleet.nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: 200,
    timeoutMs: 150,
    evidenceDir: path.join(dir, 'evidence'),
  });
  const config = {
    ...base,
    networks: { net: { decimals: 9, epochBlocks: 25 } },
    watch: {
      intervalMs: 200,
      entries: [
        { kind: 'validator' as const, name: 'val', address: t.validator, network: 'net', commissionBps },
        { kind: 'miner' as const, name: 'rig', address: t.miner, network: 'net' },
        { kind: 'account' as const, name: 'hot', address: t.account, network: 'net', minBalance: 25 },
      ],
    },
    // No `for` and no keep_firing_for: the daemon acts on the chain's state as soon as it is read.
    alerting: {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 50,
      runbookBase: 'alerts/RUNBOOKS.md',
      rules: onlyRules(Object.fromEntries(NAMES.map((n) => [n, { enabled: true, forMs: 0, keepFiringForMs: 0 }]))),
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
  alerting = alertingComponent();
  daemon = await startDaemon(config, {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [fanOutComponent(), watchComponent(), alerting],
  });
  await waitFor(
    'the first watch read',
    () => entriesOf(daemon.snapshot().watch, 'validator')[0]?.active !== undefined,
    {
      timeoutMs: 15_000,
      intervalMs: 50,
    },
  );
}, 30_000);

afterAll(() => closeAlertingRig({ daemon, fleet, receiver, dir }));

describe('watch alerts against the simulator', () => {
  it('a healthy start fires nothing', async () => {
    await new Promise((r) => setTimeout(r, 1_500));
    expect(alerting.statusAlerts()).toEqual([]);
    expect(pages).toEqual([]);
  });

  it('offline: unpaid from the next epoch, paid again after a clean one', async () => {
    fleet.chain('net').validator(t.validator, { online: false });
    await firing('LedgerValidatorOffline');
    fleet.chain('net').validator(t.validator, { online: true });
    await resolved('LedgerValidatorOffline');
  }, 60_000);

  it('jailed, then out of the active set; released and back', async () => {
    fleet.chain('net').validator(t.validator, { jailed: true });
    await firing('LedgerValidatorJailed');
    await firing('LedgerValidatorInactive');
    fleet.chain('net').validator(t.validator, { jailed: false });
    await resolved('LedgerValidatorJailed');
    await resolved('LedgerValidatorInactive');
  }, 60_000);

  it('a commission other than the configured one', async () => {
    const chain = fleet.chain('net');
    const was = chain.ledger().validators.get(t.validator)!.commissionBps;
    chain.validator(t.validator, { commissionBps: was + 100 });
    await firing('LedgerValidatorCommissionChanged');
    chain.validator(t.validator, { commissionBps: was });
    await resolved('LedgerValidatorCommissionChanged');
  }, 60_000);

  it('a miner that stops checking in: missed, inactive; back: active, reduced reward, then full', async () => {
    fleet.chain('net').miner(t.miner, { checkins: false });
    await firing('LedgerMinerCheckinMissed');
    await firing('LedgerMinerInactive');
    fleet.chain('net').miner(t.miner, { checkins: true });
    await resolved('LedgerMinerCheckinMissed');
    await resolved('LedgerMinerInactive');
    await firing('LedgerMinerRewardReduced');
    await resolved('LedgerMinerRewardReduced');
  }, 90_000);

  it('a drained wallet, and released unbonding waiting to be claimed', async () => {
    const chain = fleet.chain('net');
    const was = chain.ledger().balance(t.account);
    chain.balance(t.account, 10n * UNIT);
    await firing('LedgerAccountBalanceLow');
    chain.balance(t.account, was);
    await resolved('LedgerAccountBalanceLow');
    chain.unbond(t.account, 5n * UNIT, { validator: t.validator, releaseHeight: chain.ledger().height + 5 });
    await firing('LedgerUnbondingClaimable');
    chain.claim(t.account);
    await resolved('LedgerUnbondingClaimable');
  }, 60_000);

  it('reads failing on every node of the network; while they fail, firing alerts stay firing', async () => {
    fleet.chain('net').balance(t.account, 1n * UNIT);
    await firing('LedgerAccountBalanceLow');
    await Promise.all(fleet.nodes.map((n) => n.kill()));
    await firing('LedgerWatchReadFailing');
    // Nothing known: the balance alert is held, not resolved, however long the outage lasts.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(state('LedgerAccountBalanceLow')).toBe('firing');
    await Promise.all(fleet.nodes.map((n) => n.revive()));
    await resolved('LedgerWatchReadFailing');
    expect(state('LedgerAccountBalanceLow')).toBe('firing');
    fleet.chain('net').balance(t.account, 100n * UNIT);
    await resolved('LedgerAccountBalanceLow');
  }, 60_000);
});
