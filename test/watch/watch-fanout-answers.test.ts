// Fan-out answers held to what was asked and to the config (issue 45, faults 7 and 11), through
// the real daemon over loopback: a getValidatorDetail answer about another validator fails that
// read (it never makes the watched one jailed), and the watch's read of the active set takes the
// same `polling.maxValidators` as the node probe (a set the node probe accepts, the watch accepts).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { watchComponent } from '../../src/watch/component.js';
import { waitFor } from '../support/processes.js';
import { target } from '../support/targets.js';
import { startWatchNode, type WatchChain, type WatchNode } from './support/watchNode.js';
import { entriesOf } from '../../src/watch/types.js';

const addr = (n: number) => n.toString(16).padStart(64, '0');
const [VAL_A, VAL_B] = [0xa1, 0xb2].map(addr) as [string, string];
// Over the built-in cap of 10,000, under the configured one.
const SET = 10_001;

function detail(a: string, jailed: boolean, commission: number): string {
  return (
    `{"address":"${a}","stake":"20000000000000","weight":900,"agentScore":50,"commission_bps":${commission},` +
    `"delegatedBy":null,"uptime":null,"jailed":${jailed}}`
  );
}

function chain(): WatchChain {
  const fillers = Array.from({ length: SET - 2 }, (_, i) => ({
    address: addr(0x1000 + i),
    stake: '10000000000000',
    weight: 100,
    agentScore: 0,
  }));
  return {
    chainId: 'claw-main',
    height: 1000,
    epoch: 10,
    validators: [
      { address: VAL_A, stake: '20000000000000', weight: 900, agentScore: 50 },
      { address: VAL_B, stake: '20000000000000', weight: 800, agentScore: 50 },
      ...fillers,
    ],
    // val-a's detail is val-b's, jailed with a 99% commission: a node answering for another address.
    details: { [VAL_A]: detail(VAL_B, true, 9900), [VAL_B]: detail(VAL_B, false, 500) },
    rewards: {},
    miners: {},
    balances: {},
    unbonding: {},
    garbage: new Set(),
  };
}

let node: WatchNode;
let daemon: Daemon;

beforeAll(async () => {
  node = await startWatchNode(chain(), 5);
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 8 << 20, maxUpstreamSeries: 10, maxValidators: SET + 10 },
    nodes: [
      target('m1', {
        url: node.url,
        network: 'main',
        probes: ['health', 'blockNumber', 'validators'],
        intervalMs: 500,
        timeoutMs: 5_000,
      }),
    ],
    networks: { main: { decimals: 9, epochBlocks: 100 } },
    evidence: { dir: '/nonexistent-unused', maxBytes: 1 << 20, maxAgeDays: 1 },
    watch: {
      intervalMs: 500,
      entries: [
        { kind: 'validator', name: 'val-a', address: VAL_A, network: 'main' },
        { kind: 'validator', name: 'val-b', address: VAL_B, network: 'main' },
      ],
    },
  };
  daemon = await startDaemon(config, {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [fanOutComponent({ tickMs: 50 }), watchComponent()],
  });
  // Rounds enough that each read was answered a few times, whatever the exporter made of them.
  const asked = (method: string, a?: string) =>
    node.calls.filter((c) => c.method === method && (a === undefined || c.params[0] === a)).length;
  await waitFor('three rounds answered', () => asked('getValidatorDetail', VAL_A) >= 3 && asked('getValidators') >= 4, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  // Asked is not taken in (a set of 10,001 takes a while to parse): wait until each answer the
  // tests read has been: val-a's refused, val-b's believed, the set by the node probe and the watch.
  await waitFor(
    'the answers taken in',
    () => {
      const snap = daemon.snapshot();
      const of = (name: string) => entriesOf(snap.watch, 'validator').find((v) => v.name === name);
      const set = snap.fanOut?.get('watchValidatorSet')?.find((r) => r.entity.key === 'main');
      return (
        (of('val-a')?.failures.invalid_response ?? 0) > 0 &&
        of('val-b')?.lastSuccessSeconds !== undefined &&
        snap.networks.find((n) => n.network === 'main')?.validators !== undefined &&
        set?.lastSuccessAt !== undefined
      );
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await node?.close();
});

const metricLines = async () => (await (await request(`${daemon.url}/metrics`)).body.text()).split('\n');

describe('fan-out answers checked against the address asked (45.11)', () => {
  it('fails the read of a validator whose detail names another address, and never shows it jailed', async () => {
    const a = entriesOf(daemon.snapshot().watch, 'validator').find((v) => v.name === 'val-a')!;
    expect(a.jailed).toBeUndefined();
    expect(a.commissionRatio).toBeUndefined();
    expect(a.failures.invalid_response ?? 0).toBeGreaterThan(0);
    const lines = await metricLines();
    const A = `network="main",name="val-a",validator="${VAL_A}"`;
    expect(lines.filter((l) => l.startsWith(`ledger_watch_validator_jailed{${A}}`))).toEqual([]);
    expect(lines.some((l) => l.startsWith(`ledger_watch_read_failures_total{${A},reason="invalid_response"} `))).toBe(
      true,
    );
  });

  it('still believes a detail that names the address asked', () => {
    const b = entriesOf(daemon.snapshot().watch, 'validator').find((v) => v.name === 'val-b')!;
    expect(b.jailed).toBe(false);
    expect(b.commissionRatio).toBe(0.05);
    expect(b.failures).toEqual({});
  });
});

describe('one validator-set cap for the node probe and the watch (45.7)', () => {
  it('accepts a set over 10,000 in both when polling.maxValidators allows it', () => {
    const snap = daemon.snapshot();
    expect(snap.networks.find((n) => n.network === 'main')?.validators?.list.length).toBe(SET);
    const b = entriesOf(snap.watch, 'validator').find((v) => v.name === 'val-b')!;
    expect(b.active).toBe(true);
    expect(b.rank).toBe(2);
    expect(b.setSize).toBe(SET);
    const set = snap.fanOut!.get('watchValidatorSet')!.find((r) => r.entity.key === 'main')!;
    expect(set.consecutiveFailures).toBe(0);
    expect(Object.values(set.failures).every((n) => n === 0)).toBe(true);
  });
});
