// accounts[].tokens, accounts[].allowances and watch.services through the real exporter
// (dist/cli.js) against the simulator: every alert of theirs fires once and resolves once, driven
// by the simulator's control API only; a kill -9 while LedgerServiceMissing fires, and the nodes
// going away meanwhile, neither resolve nor repeat it (the services seen are kept in the state dir).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SimFleet } from '../../src/sim/index.js';
import { closeServer, onlyRules, startWebhook, type WebhookBody } from '../support/alertingDaemon.js';
import { deliveryRecorded } from '../support/alertState.js';
import { sampleValue, scrapeText, startExporter, type ExporterChild } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';

const WAIT = 20_000;
const NET = 'net';
const MINE = [
  'LedgerTokenBalanceLow',
  'LedgerTokenAllowanceHigh',
  'LedgerServiceInactive',
  'LedgerServiceEndpointDown',
  'LedgerServiceMissing',
];
const M6 = 1_000_000n; // token 0 of the simulator has 6 decimals

let dir = '';
let fleet: SimFleet;
let hook: Server;
let hookUrl = '';
let endpoint: Server;
let endpointUrl = '';
let endpointStatus = 200;
const pages: WebhookBody[] = [];
let exporter: ExporterChild | undefined;
let account = '';
let spender = '';
let token = '';

function writeConfig(): string {
  const rules = {
    ...onlyRules({}),
    ...Object.fromEntries(MINE.map((name) => [name, { for: '0s', keepFiringFor: '0s' }])),
  };
  const file = path.join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '250ms', timeout: '200ms', probes: ['health', 'blockNumber'] },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: NET })),
      networks: { [NET]: { decimals: 9, epochBlocks: 25 } },
      watch: {
        interval: '200ms',
        accounts: [
          {
            name: 'hot',
            address: account,
            network: NET,
            tokens: [{ tokenId: token, minBalance: 100 }],
            allowances: [{ spender, tokenId: token, max: 10 }],
          },
        ],
        services: [
          {
            name: 'svc',
            provider: account,
            network: NET,
            type: 'translation',
            probeEndpoint: true,
            allowPrivateEndpoints: true,
          },
        ],
      },
      evidence: { dir: path.join(dir, 'evidence') },
      alerting: {
        stateDir: path.join(dir, 'state'),
        evaluationInterval: '250ms',
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
  const res = await fetch(`${fleet.controlUrl}${pathname}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, await res.text()).toBeLessThan(300);
}
const setBalance = (units: bigint) =>
  control(`/networks/${NET}/tokens/${token}/balances/${account}`, { balance: units.toString() });
const setAllowance = (units: bigint) =>
  control(`/networks/${NET}/tokens/${token}/allowances/${account}/${spender}`, { allowance: units.toString() });
const service = (change: Record<string, unknown>) =>
  control(`/networks/${NET}/services/${account}/translation`, change);

const paged = (name: string, status: string) =>
  pages.filter((p) => p.status === status && p.alerts?.some((a) => a.labels.alertname === name)).length;
const active = async (e: ExporterChild) =>
  (
    (await (await fetch(`${e.url}/api/alerts`)).json()) as {
      alerts: Array<{ name: string; state: string; labels: Record<string, string>; firingSince?: string }>;
    }
  ).alerts.filter((a) => MINE.includes(a.name) && a.state !== 'resolved');
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fires once (one page), then resolves once after `heal`. */
async function firesAndResolves(name: string, hurt: () => Promise<void>, heal: () => Promise<void>): Promise<void> {
  await hurt();
  await waitFor(`${name} paged`, () => (paged(name, 'firing') === 1 ? true : undefined), { timeoutMs: WAIT });
  await heal();
  await waitFor(`${name} resolved`, () => (paged(name, 'resolved') === 1 ? true : undefined), { timeoutMs: WAIT });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-tokserv-'));
  fleet = await SimFleet.start(
    ['t-1', 't-2'].map((name) => ({ name, network: NET })),
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 50, epochBlocks: 25, controlPort: 0 },
  );
  const targets = fleet.chain(NET).watchTargets();
  account = targets.account;
  spender = targets.validator;
  const tokens = (await (await fetch(`${fleet.controlUrl}/networks/${NET}/tokens`)).json()) as {
    tokens: Array<{ tokenId: string; decimals: number }>;
  };
  expect(tokens.tokens[0]!.decimals).toBe(6);
  token = tokens.tokens[0]!.tokenId;
  ({ server: hook, url: hookUrl } = await startWebhook((body) => void pages.push(body)));
  endpoint = createServer((_q, res) => res.writeHead(endpointStatus).end('ok'));
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/health`;
  await setBalance(500n * M6);
  await setAllowance(0n);
  await service({ active: true, endpoint: endpointUrl });
}, 60_000);

afterAll(async () => {
  await exporter?.kill();
  await fleet?.close();
  await closeServer(hook);
  if (endpoint) await closeServer(endpoint);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tokens and services through the real exporter', () => {
  it('exports balances in the token decimals, allowances, and the service with its endpoint', async () => {
    exporter = await startExporter(writeConfig());
    const e = exporter;
    const text = await waitFor(
      'token and endpoint metrics',
      async () => {
        const t = await scrapeText(e.url);
        return sampleValue(t, 'ledger_watch_service_endpoint_up', { name: 'svc' }) !== undefined &&
          sampleValue(t, 'ledger_watch_token_balance_tokens', { name: 'hot' }) !== undefined
          ? t
          : undefined;
      },
      { timeoutMs: WAIT, intervalMs: 100 },
    );
    const labels = { name: 'hot', account, token, symbol: 'CCR' };
    expect(sampleValue(text, 'ledger_watch_token_balance_tokens', labels)).toBe(500);
    expect(sampleValue(text, 'ledger_watch_token_min_balance_tokens', labels)).toBe(100);
    expect(sampleValue(text, 'ledger_watch_token_allowance_tokens', { ...labels, spender })).toBe(0);
    expect(sampleValue(text, 'ledger_watch_token_allowance_max_tokens', { ...labels, spender })).toBe(10);
    const svc = { name: 'svc', provider: account, service_type: 'translation' };
    expect(sampleValue(text, 'ledger_watch_service_registered', svc)).toBe(1);
    expect(sampleValue(text, 'ledger_watch_service_active', svc)).toBe(1);
    expect(sampleValue(text, 'ledger_watch_service_endpoint_up', svc)).toBe(1);
    expect(sampleValue(text, 'ledger_watch_service_endpoint_duration_seconds', svc)).toBeGreaterThanOrEqual(0);
    const api = (await (await fetch(`${e.url}/api/v1/watch`)).json()) as {
      services: Array<{ name: string; status: string; text: string }>;
    };
    expect(api.services[0]).toMatchObject({ name: 'svc', status: 'up' });
    expect(api.services[0]!.text).toMatch(/^translation: active, endpoint answered 200/);
    await quiet(1_000);
    expect(await active(e)).toEqual([]);
    expect(pages).toEqual([]);
  });

  it(
    'each alert fires once and resolves once, by the chain (and the endpoint) alone',
    { timeout: 10 * WAIT },
    async () => {
      await firesAndResolves(
        'LedgerTokenBalanceLow',
        () => setBalance(50n * M6),
        () => setBalance(500n * M6),
      );
      await firesAndResolves(
        'LedgerTokenAllowanceHigh',
        () => setAllowance(20n * M6),
        () => setAllowance(0n),
      );
      await firesAndResolves(
        'LedgerServiceInactive',
        () => service({ active: false }),
        () => service({ active: true }),
      );
      await firesAndResolves(
        'LedgerServiceEndpointDown',
        async () => void (endpointStatus = 503),
        async () => void (endpointStatus = 200),
      );

      // Gone from the registry: fires once; a kill -9, the nodes going away and a reload decide nothing.
      await service({ remove: true });
      await waitFor('missing paged', () => (paged('LedgerServiceMissing', 'firing') === 1 ? true : undefined), {
        timeoutMs: WAIT,
      });
      const firing = (await active(exporter!)).find((a) => a.name === 'LedgerServiceMissing')!;
      expect(firing.labels).toMatchObject({ name: 'svc', provider: account, service_type: 'translation' });
      await waitFor('the page recorded as delivered', () => deliveryRecorded(path.join(dir, 'state')), {
        timeoutMs: WAIT,
      });
      await exporter!.kill();
      exporter = await startExporter(path.join(dir, 'fleet.yaml'));
      await Promise.all(fleet.nodes.map((n) => fleet.node(n.name).kill()));
      await quiet(2_000);
      expect((await active(exporter)).map((a) => [a.name, a.state, a.firingSince])).toEqual([
        ['LedgerServiceMissing', 'firing', firing.firingSince],
      ]);
      await Promise.all(fleet.nodes.map((n) => fleet.node(n.name).revive()));
      await quiet(2_000);
      // A reload (the watch and its services' record rebuilt from the file) decides nothing either.
      exporter.child.kill('SIGHUP');
      await exporter.waitForLog('the reload', (l) => l.msg === 'configuration reloaded', WAIT);
      await quiet(2_000);
      expect((await active(exporter)).map((a) => a.name)).toEqual(['LedgerServiceMissing']);
      expect(paged('LedgerServiceMissing', 'firing')).toBe(1);
      expect(paged('LedgerServiceMissing', 'resolved')).toBe(0);

      await service({ active: true, endpoint: endpointUrl });
      await waitFor('missing resolved', () => (paged('LedgerServiceMissing', 'resolved') === 1 ? true : undefined), {
        timeoutMs: WAIT,
      });
      await quiet(1_500);
      for (const name of MINE) expect([name, paged(name, 'firing'), paged(name, 'resolved')]).toEqual([name, 1, 1]);
      expect(await active(exporter)).toEqual([]);
    },
  );
});
