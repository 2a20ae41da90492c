// The delegator and agent kinds through the real exporter (dist/cli.js) against the simulator:
// read, exported with their extra labels, shown on /api/v1/watch, and each of their seven alerts
// fired once and resolved once by the chain's state alone, driven by the simulator's control API.
// kill -9 while LedgerDelegationRemoved fires neither resolves nor repeats it (its look-back is in
// the state directory), and reads failing on every node decide nothing.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ALERT_MEMORY_FILE } from '../../src/alerting/notify/memoryStore.js';
import { SimFleet } from '../../src/sim/index.js';
import { agentScore, agentTarget } from '../../src/sim/ledger-agents.js';
import { delegatorTarget, userDelegations } from '../../src/sim/ledger-delegations.js';
import { closeServer, onlyRules, startWebhook, type WebhookBody } from '../support/alertingDaemon.js';
import { deliveryRecorded } from '../support/alertState.js';
import { sampleValue, scrapeText, startExporter, type ExporterChild } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';

const WAIT = 30_000;
const NETWORK = 'net';
const RULES = [
  'LedgerDelegationValidatorInactive',
  'LedgerDelegationValidatorOffline',
  'LedgerDelegationCommissionHigh',
  'LedgerDelegationRemoved',
  'LedgerAgentNotRegistered',
  'LedgerAgentScoreLow',
  'LedgerAgentScoreDropped',
];

let dir = '';
let fleet: SimFleet;
let hook: Server;
let hookUrl = '';
let configPath = '';
const pages: WebhookBody[] = [];
let exporter: ExporterChild;
let delegator = '';
let agent = '';
let validator = '';
let amount = '';
let commissionBps = 0;

// "Unpaid while active" compares two network reads: across an epoch boundary (a jail, 50 ms blocks)
// a stale set beside fresh rewards can say so for one read on a loaded machine; real nodes' 2 min
// `for` absorbs that, and this one does too.
const FOR: Record<string, string> = { LedgerDelegationValidatorOffline: '2s' };

function writeConfig(maxCommissionBps: number, minScore: number): string {
  const rules = {
    ...onlyRules({}),
    ...Object.fromEntries(RULES.map((name) => [name, { for: FOR[name] ?? '500ms', keepFiringFor: '0s' }])),
  };
  const file = path.join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '250ms', timeout: '200ms', probes: ['health', 'blockNumber'] },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: NETWORK })),
      networks: { [NETWORK]: { decimals: 9, epochBlocks: 25 } },
      watch: {
        interval: '200ms',
        delegators: [{ name: 'stake', address: delegator, network: NETWORK, maxCommissionBps }],
        agents: [{ name: 'bot', address: agent, network: NETWORK, minScore }],
      },
      evidence: { dir: path.join(dir, 'evidence') },
      alerting: {
        stateDir: path.join(dir, 'state'),
        evaluationInterval: '100ms',
        rules,
        groupWait: '0s',
        groupInterval: '1s',
        repeatInterval: '1h',
        receivers: [{ name: 'hook', webhook: { url: hookUrl } }],
      },
    }),
  );
  return file;
}

async function control(pathname: string, body: unknown): Promise<void> {
  const res = await fetch(`${fleet.controlUrl}/networks/${NETWORK}${pathname}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

interface Listed {
  alerts: Array<{ name: string; state: string; labels: Record<string, string> }>;
}
const alerts = async () =>
  ((await (await fetch(`${exporter.url}/api/alerts`)).json()) as Listed).alerts.filter((a) => RULES.includes(a.name));
const paged = (name: string, status: string) =>
  pages.filter((p) => p.status === status && p.alerts?.some((a) => a.labels.alertname === name)).length;
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each alert pages once when it fires and once when it resolves. */
async function fires(name: string): Promise<void> {
  await waitFor(`${name} firing`, async () => (await alerts()).some((a) => a.name === name && a.state === 'firing'), {
    timeoutMs: WAIT,
    intervalMs: 100,
  });
  await waitFor(`${name} paged`, () => paged(name, 'firing') === 1, { timeoutMs: WAIT, intervalMs: 100 });
}
async function resolves(name: string): Promise<void> {
  await waitFor(`${name} resolved`, async () => !(await alerts()).some((a) => a.name === name), {
    timeoutMs: WAIT,
    intervalMs: 100,
  });
  await waitFor(`${name} resolve paged`, () => paged(name, 'resolved') === 1, { timeoutMs: WAIT, intervalMs: 100 });
}

const readOnce = (name: string) =>
  waitFor(
    `a read of ${name}`,
    async () => {
      const v = sampleValue(await scrapeText(exporter.url), 'ledger_watch_last_success_timestamp_seconds', { name });
      return v !== undefined && v > 0 ? v : undefined;
    },
    { timeoutMs: WAIT, intervalMs: 100 },
  );

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-stakes-'));
  fleet = await SimFleet.start(
    ['s-1', 's-2'].map((name) => ({ name, network: NETWORK })),
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 50, epochBlocks: 25, controlPort: 0 },
  );
  const chain = fleet.chain(NETWORK).simChain;
  delegator = delegatorTarget(chain)!;
  agent = agentTarget(chain)!;
  // The delegation to a validator in the active set.
  const seats = new Set(
    fleet
      .chain(NETWORK)
      .ledger()
      .seats.map((s) => s.address),
  );
  const d = userDelegations(chain, delegator).find((x) => seats.has(x.validator as string))!;
  validator = d.validator as string;
  amount = d.amount as string;
  commissionBps = d.commission_bps as number;
  const highest = Math.max(...userDelegations(chain, delegator).map((x) => x.commission_bps as number));
  ({ server: hook, url: hookUrl } = await startWebhook((body) => void pages.push(body)));
  configPath = writeConfig(Math.min(10_000, highest + 100), Math.floor(agentScore(chain, agent).total! * 0.7));
  exporter = await startExporter(configPath);
  await readOnce('stake');
  await readOnce('bot');
}, 60_000);

afterAll(async () => {
  await exporter?.kill();
  await fleet?.close();
  await closeServer(hook);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('delegators and agents through the real exporter', () => {
  it('exports each delegation by validator and the score by dimension; shows both in words', async () => {
    const text = await scrapeText(exporter.url);
    const labels = { name: 'stake', delegator, validator };
    expect(sampleValue(text, 'ledger_watch_delegation_tokens', labels)).toBe(Number(BigInt(amount)) / 1e9);
    expect(sampleValue(text, 'ledger_watch_delegation_commission_ratio', labels)).toBe(commissionBps / 10_000);
    expect(sampleValue(text, 'ledger_watch_delegation_validator_active', labels)).toBe(1);
    expect(sampleValue(text, 'ledger_watch_agent_registered', { name: 'bot', agent })).toBe(1);
    for (const dimension of ['total', 'activity', 'uptime', 'block_production', 'economic', 'platform'])
      expect(sampleValue(text, 'ledger_watch_agent_score_ratio', { name: 'bot', dimension })).toBeGreaterThanOrEqual(0);
    type Api = Record<
      string,
      Array<{ name: string; text: string; delegations?: Array<{ validator: string; amount: string }> }>
    >;
    // The halving needs the network's epoch too (a node's /health): its words come with it.
    const api = await waitFor(
      'the agent in words with its next halving',
      async () => {
        const a = (await (await fetch(`${exporter.url}/api/v1/watch`)).json()) as Api;
        return a.agents?.[0]?.text.includes('halves next') ? a : undefined;
      },
      { timeoutMs: WAIT, intervalMs: 100 },
    );
    // The amount exact, as the chain has it.
    expect(api.delegators![0]!.delegations!.find((x) => x.validator === validator)!.amount).toBe(amount);
    expect(api.delegators![0]!.text).toMatch(/^\d+ delegations?, [\d,.]+ tokens; every validator active and paid$/);
    expect(api.agents![0]!.text).toMatch(
      /^score [\d.]+%, minimum [\d.]+%; decay [\d.]+% \(halves next in [\d,]+ epochs/,
    );
    await quiet(1_000);
    expect(await alerts()).toEqual([]);
    expect(pages).toEqual([]);
  });

  it('a validator delegated to charging more than maxCommissionBps, then back', { timeout: 3 * WAIT }, async () => {
    await control(`/validators/${validator}`, { commissionBps: 10_000 });
    await fires('LedgerDelegationCommissionHigh');
    await control(`/validators/${validator}`, { commissionBps });
    await resolves('LedgerDelegationCommissionHigh');
  });

  it('offline: unpaid from the next epoch; paid again after a clean one', { timeout: 3 * WAIT }, async () => {
    await control(`/validators/${validator}`, { online: false });
    await fires('LedgerDelegationValidatorOffline');
    await control(`/validators/${validator}`, { online: true });
    await resolves('LedgerDelegationValidatorOffline');
  });

  it('jailed: out of the active set at the boundary; released: back', { timeout: 3 * WAIT }, async () => {
    await control(`/validators/${validator}`, { jailed: true });
    await fires('LedgerDelegationValidatorInactive');
    await control(`/validators/${validator}`, { jailed: false });
    await resolves('LedgerDelegationValidatorInactive');
  });

  it(
    'a shrunk delegation fires once; kill -9, failed reads, a reload neither resolve nor repeat it; restored: resolves',
    { timeout: 6 * WAIT },
    async () => {
      await control(`/delegators/${delegator}`, { validator, amount: (BigInt(amount) - 1n).toString() });
      await fires('LedgerDelegationRemoved');
      expect(readdirSync(path.join(dir, 'state'))).toContain(ALERT_MEMORY_FILE);
      // The receiver has the page; the kill waits for its delivery on disk, or the page goes out again.
      await waitFor('the page recorded as delivered', () => deliveryRecorded(path.join(dir, 'state')), {
        timeoutMs: WAIT,
      });
      await exporter.kill();
      exporter = await startExporter(configPath);
      await readOnce('stake');
      await Promise.all(fleet.nodes.map((n) => n.kill()));
      await quiet(1_500);
      await Promise.all(fleet.nodes.map((n) => n.revive()));
      await readOnce('stake');
      // A reload (the watch and the engine rebuilt from the file) neither resolves nor repeats it.
      exporter.child.kill('SIGHUP');
      await exporter.waitForLog('the reload', (l) => l.msg === 'configuration reloaded', WAIT);
      await readOnce('stake');
      await quiet(1_500);
      expect((await alerts()).map((a) => [a.name, a.state, a.labels.validator])).toEqual([
        ['LedgerDelegationRemoved', 'firing', validator],
      ]);
      expect([paged('LedgerDelegationRemoved', 'firing'), paged('LedgerDelegationRemoved', 'resolved')]).toEqual([
        1, 0,
      ]);
      await control(`/delegators/${delegator}`, { validator, amount });
      await resolves('LedgerDelegationRemoved');
    },
  );

  it('an agent unregistered, then registered again', { timeout: 3 * WAIT }, async () => {
    await control(`/agents/${agent}`, { registered: false });
    await fires('LedgerAgentNotRegistered');
    await control(`/agents/${agent}`, { registered: true });
    await resolves('LedgerAgentNotRegistered');
  });

  it('its score falls by half: below minScore and dropped; back: both resolve', { timeout: 3 * WAIT }, async () => {
    const before = (await (await fetch(`${fleet.controlUrl}/networks/${NETWORK}/agents/${agent}`)).json()) as {
      score: Record<string, number>;
    };
    const dims = ['activity', 'uptime', 'block_production', 'economic', 'platform'];
    await control(`/agents/${agent}`, {
      dimensions: Object.fromEntries(dims.map((k) => [k, Math.floor(before.score[k]! / 2)])),
    });
    await fires('LedgerAgentScoreLow');
    await fires('LedgerAgentScoreDropped');
    await control(`/agents/${agent}`, { dimensions: Object.fromEntries(dims.map((k) => [k, before.score[k]])) });
    await resolves('LedgerAgentScoreLow');
    await resolves('LedgerAgentScoreDropped');
  });

  it('each alert paged once firing and once resolved, nothing else', async () => {
    await quiet(1_500);
    for (const name of RULES) expect([name, paged(name, 'firing'), paged(name, 'resolved')]).toEqual([name, 1, 1]);
    expect(await alerts()).toEqual([]);
  });
});
