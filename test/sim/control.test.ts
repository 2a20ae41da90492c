import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet, runSimulatorCli, mixedFleetSpecs, SIMULATE_USAGE } from '../../src/sim/index.js';
import { CONTROL_ENDPOINTS } from '../../src/sim/control.js';
import { UsageError } from '../../src/cli/options.js';
import { getJson, http, rpc } from './helpers.js';
import { waitFor } from '../support/processes.js';

describe('control API', () => {
  let fleet: SimFleet;
  beforeAll(async () => {
    fleet = await SimFleet.start([{ name: 'a' }, { name: 'b', build: 'earliest' }], { controlPort: 0 });
  });
  afterAll(() => fleet.close());
  const post = (path: string, body?: string) =>
    http(`${fleet.controlUrl!}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body ?? '',
    });

  it('lists nodes with fault and height', async () => {
    expect(fleet.controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { nodes } = (await getJson(`${fleet.controlUrl!}/nodes`)) as { nodes: Record<string, unknown>[] };
    expect(nodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(nodes[0]).toMatchObject({ fault: 'none', url: fleet.node('a').url, namespace: 'claw' });
    expect(nodes[1]).toMatchObject({ build: 'earliest', namespace: 'clw' });
    expect(Number.isInteger(nodes[0]!.height)).toBe(true);
  });

  it('sets a fault that the node then shows over HTTP', async () => {
    const r = await post('/nodes/a/fault', '{"fault":"proxy_503"}');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ name: 'a', fault: 'proxy_503' });
    expect(fleet.node('a').fault()).toBe('proxy_503');
    expect((await http(`${fleet.node('a').url}/health`)).status).toBe(503);
    expect((await post('/nodes/a/fault', '{"fault":"none"}')).status).toBe(200);
    expect((await http(`${fleet.node('a').url}/health`)).status).toBe(200);
  });

  it('kills and revives a node', async () => {
    expect((await post('/nodes/b/kill')).status).toBe(200);
    await expect(http(`${fleet.node('b').url}/health`, { timeoutMs: 2_000 })).rejects.toThrow();
    const r = await post('/nodes/b/revive');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).fault).toBe('none');
    expect((await http(`${fleet.node('b').url}/health`)).status).toBe(200);
  });

  it('rejects bad input with 400 and unknown nodes or paths with 404', async () => {
    expect((await post('/nodes/a/fault', 'not json')).status).toBe(400);
    expect((await post('/nodes/a/fault', '{"fault":"melt"}')).status).toBe(400);
    expect((await post('/nodes/a/fault', '{}')).status).toBe(400);
    expect((await post('/nodes/zzz/fault', '{"fault":"hang"}')).status).toBe(404);
    expect((await post('/nodes/a/explode')).status).toBe(404);
    expect((await http(`${fleet.controlUrl!}/other`)).status).toBe(404);
    expect((await http(`${fleet.controlUrl!}/nodes/a/kill`)).status).toBe(405);
    expect(fleet.node('a').fault()).toBe('none');
  });
});

describe('fleet construction', () => {
  it('rejects duplicate names, unknown faults and unknown node lookups', async () => {
    await expect(SimFleet.start([{ name: 'x' }, { name: 'x' }])).rejects.toThrow(/duplicate/);
    await expect(SimFleet.start([{ name: 'x', fault: 'melt' as never }])).rejects.toThrow(/fault/);
    const f = await SimFleet.start([{ name: 'x' }], { layout: 'shared-port' });
    try {
      expect(() => f.node('nope')).toThrow(/unknown/);
      expect(f.controlUrl).toBeUndefined();
    } finally {
      await f.close();
    }
  });

  it('mixedFleetSpecs spreads builds, networks and (optionally) faults', () => {
    const specs = mixedFleetSpecs(30, { networks: ['n1', 'n2'], faults: true });
    expect(new Set(specs.map((s) => s.name)).size).toBe(30);
    expect(new Set(specs.map((s) => s.build))).toEqual(new Set(['current', 'staking', 'earliest']));
    expect(new Set(specs.map((s) => s.network))).toEqual(new Set(['n1', 'n2']));
    expect(specs.filter((s) => s.fault).length).toBeGreaterThan(3);
    expect(specs[0]!.fault).toBeUndefined();
    expect(mixedFleetSpecs(5).every((s) => !s.fault)).toBe(true);
  });
});

describe('runSimulatorCli', () => {
  it('prints node and control URLs as JSON lines, serves them, and stops on abort', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const ac = new AbortController();
    const done = runSimulatorCli(
      ['--nodes', '3', '--layout', 'shared-port', '--port', '0', '--control-port', '0', '--block-time-ms', '100'],
      { stdout: out, signal: ac.signal },
    );
    await waitFor('the ready line', () => text.includes('"event":"ready"'), { timeoutMs: 5_000, intervalMs: 20 });
    const events = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const nodes = events.filter((e) => e.event === 'node');
    expect(nodes.map((n) => n.name)).toEqual(['node-1', 'node-2', 'node-3']);
    const control = events.find((e) => e.event === 'control')!;
    expect((await rpc(nodes[0]!.url as string, 'claw_blockNumber')).error).toBeUndefined();
    expect(((await getJson(`${control.url as string}/nodes`)).nodes as unknown[]).length).toBe(3);
    ac.abort();
    await done;
    expect(text).toContain('"event":"stopped"');
    await expect(http(`${nodes[0]!.url as string}/health`, { timeoutMs: 1_000 })).rejects.toThrow();
  });

  it('rejects bad options', async () => {
    await expect(runSimulatorCli(['--layout', 'mesh'])).rejects.toThrow(/layout/);
    await expect(runSimulatorCli(['--nodes', '0'])).rejects.toThrow(/nodes/);
    await expect(runSimulatorCli(['--bogus'])).rejects.toThrow();
  });

  it('answers an unknown flag or a stray word with the nearest flag, as the main CLI does', async () => {
    await expect(runSimulatorCli(['--node', '3'])).rejects.toThrow(/unknown option --node; did you mean --nodes\?/);
    await expect(runSimulatorCli(['--controlport', '0'])).rejects.toThrow(/did you mean --control-port\?/);
    await expect(runSimulatorCli(['--block-time', '5'])).rejects.toThrow(/did you mean --block-time-ms\?/);
    await expect(runSimulatorCli(['falts'])).rejects.toThrow(/no command, got "falts"; did you mean --faults\?/);
    await expect(runSimulatorCli(['help'])).rejects.toThrow(/did you mean --help\?/);
    await expect(runSimulatorCli(['--zzzzzzzzzz'])).rejects.toThrow(UsageError);
    await expect(runSimulatorCli(['--zzzzzzzzzz'])).rejects.not.toThrow(/did you mean/);
  });

  it('--help lists every control endpoint, and each listed endpoint answers on a running simulator', async () => {
    const help = new PassThrough();
    let helpText = '';
    help.on('data', (c: Buffer) => (helpText += c.toString()));
    await runSimulatorCli(['--help'], { stdout: help });
    expect(helpText).toBe(SIMULATE_USAGE);
    for (const e of CONTROL_ENDPOINTS) expect(helpText).toContain(`${e.method.padEnd(5)}${e.path}`);

    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const ac = new AbortController();
    const done = runSimulatorCli(['--nodes', '3', '--control-port', '0'], { stdout: out, signal: ac.signal });
    try {
      await waitFor('the ready line', () => text.includes('"event":"ready"'), { timeoutMs: 5_000, intervalMs: 20 });
      const events = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const control = events.find((e) => e.event === 'control')!.url as string;
      const node = events.find((e) => e.event === 'node')!.name as string;
      const nets = (await getJson(`${control}/networks`)).networks as {
        network: string;
        watch: { validator: string; miner: string; account: string };
      }[];
      const { network, watch } = nets[0]!;
      const { tokens } = (await getJson(`${control}/networks/${network}/tokens`)) as { tokens: { tokenId: string }[] };
      for (const e of CONTROL_ENDPOINTS) {
        const kind = /\/(validators|miners|accounts)\//.exec(e.path)?.[1];
        const entry = kind === 'validators' ? watch.validator : kind === 'miners' ? watch.miner : watch.account;
        const path = e.path
          .replace('<name>', node)
          .replace('<n>', network)
          .replace('<addr>', entry)
          .replace('<tokenId>', tokens[0]!.tokenId)
          .replace('<owner>', watch.account)
          .replace('<spender>', watch.validator)
          .replace('<provider>', watch.account)
          .replace('<type>', 'translation');
        const body = (e.body ?? '').replace('<addr>', watch.validator);
        const reply = await http(`${control}${path}`, {
          method: e.method,
          ...(e.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body } : {}),
        });
        expect({ endpoint: `${e.method} ${e.path}`, status: reply.status }).toEqual({
          endpoint: `${e.method} ${e.path}`,
          status: 200,
        });
      }
    } finally {
      ac.abort();
      await done;
    }
  });
});
