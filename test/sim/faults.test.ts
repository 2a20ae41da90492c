import { afterEach, describe, expect, it } from 'vitest';
import { SimFleet, type SimFleetOptions, type SimNodeSpec } from '../../src/sim/index.js';
import { getJson, http, manualClock, rpc, rpcRaw } from './helpers.js';
import { waitFor } from '../support/processes.js';

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});
async function start(specs: SimNodeSpec[], opts: SimFleetOptions = {}): Promise<SimFleet> {
  fleet = await SimFleet.start(specs, opts);
  return fleet;
}

/** Connection-level failure code of a request (ECONNREFUSED, UND_ERR_SOCKET, ...). */
async function connectError(url: string): Promise<string> {
  try {
    await http(url, { timeoutMs: 2_000 });
  } catch (e) {
    const err = e as { code?: string; cause?: { code?: string } };
    return err.code ?? err.cause?.code ?? 'error';
  }
  return 'answered';
}

describe.each(['port-per-node', 'shared-port'] as const)('faults (%s)', (layout) => {
  it.each([502, 503, 504] as const)('proxy_%i answers an nginx HTML page on every path', async (status) => {
    const f = await start([{ name: 'n', fault: `proxy_${status}` }], { layout });
    const n = f.node('n');
    for (const r of [
      await http(`${n.url}/health`),
      await http(`${n.url}/metrics`),
      await rpcRaw(n.url, 'claw_blockNumber'),
    ]) {
      expect(r.status).toBe(status);
      expect(r.headers.server).toBe('nginx');
      expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
      expect(r.body).toContain(`<title>${status}`);
    }
    n.setFault('none');
    expect((await http(`${n.url}/health`)).status).toBe(200);
  });

  it('json_500 answers HTTP 500 with a JSON body', async () => {
    const f = await start([{ name: 'n', fault: 'json_500' }], { layout });
    for (const r of [await http(`${f.node('n').url}/health`), await rpcRaw(f.node('n').url, 'claw_blockNumber')]) {
      expect(r.status).toBe(500);
      expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
      expect(typeof JSON.parse(r.body)).toBe('object');
    }
  });

  it('garbage_json answers 200 with broken JSON on RPC and /health', async () => {
    const f = await start([{ name: 'n', fault: 'garbage_json' }], { layout });
    for (const r of [await http(`${f.node('n').url}/health`), await rpcRaw(f.node('n').url, 'claw_blockNumber')]) {
      expect(r.status).toBe(200);
      expect(r.body.length).toBeGreaterThan(0);
      expect(() => JSON.parse(r.body)).toThrow();
    }
  });

  it('hang never answers, until the fault changes', async () => {
    const f = await start([{ name: 'n', fault: 'hang' }], { layout });
    const n = f.node('n');
    const pending = http(`${n.url}/health`, { timeoutMs: 10_000 }).then(
      () => 'answered',
      () => 'failed',
    );
    await waitFor('the request to arrive', () => n.requestCount() === 1, { timeoutMs: 5_000, intervalMs: 20 });
    n.setFault('none'); // drops the held connection
    expect(await pending).toBe('failed');
    expect((await http(`${n.url}/health`)).status).toBe(200);
  });

  it('slow_body sends headers at once, then trickles the body a few bytes at a time', async () => {
    const f = await start([{ name: 'n', fault: 'slow_body' }], { layout, slowBodyBytes: 8, slowBodyTickMs: 10 });
    const n = f.node('n');
    const { request } = await import('undici');
    const res = await request(`${n.url}/health`, { headersTimeout: 2_000, bodyTimeout: 5_000 });
    expect(res.statusCode).toBe(200);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    const total = Buffer.concat(chunks).length;
    // One write per tick; a loaded machine may merge a few, never most of them.
    expect(total).toBeGreaterThan(100);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.floor(total / 8 / 3));
    expect(chunks[0]!.length).toBeLessThan(total);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
    expect(body.status).toBe('ok');
  });

  it('kill refuses or drops connections; revive serves again on the same URL with a fresh uptime', async () => {
    const clock = manualClock();
    const f = await start([{ name: 'n' }, { name: 'other' }], { layout, now: clock.now });
    const n = f.node('n');
    const url = n.url;
    clock.advance(100_000);
    expect((await getJson(`${url}/health`)).uptime_secs).toBe(100);
    await n.kill();
    expect(n.fault()).toBe('down');
    const code = await connectError(`${url}/health`);
    expect(code).not.toBe('answered');
    if (layout === 'port-per-node') expect(code).toBe('ECONNREFUSED');
    // Other nodes are unaffected.
    expect((await http(`${f.node('other').url}/health`)).status).toBe(200);
    await n.revive();
    expect(n.url).toBe(url);
    expect(n.fault()).toBe('none');
    const h = await getJson(`${url}/health`);
    expect(h.uptime_secs).toBe(0);
    // Counters restart with the process.
    clock.advance(9_000);
    const m = (await http(`${url}/metrics`)).body;
    expect(/^blocks_total (\d+)$/m.exec(m)![1]).toBe('3');
  });

  it('down as a fault and in the spec behaves like kill', async () => {
    const f = await start([{ name: 'n', fault: 'down' }], { layout });
    const n = f.node('n');
    expect(await connectError(`${n.url}/health`)).not.toBe('answered');
    n.setFault('none');
    await n.revive(); // waits for the listener to be back
    expect((await http(`${n.url}/health`)).status).toBe(200);
  });
});

describe('revive', () => {
  it('rejects when its port was taken while the node was down', async () => {
    const f = await start([{ name: 'n' }]);
    const n = f.node('n');
    await n.kill();
    const squatter = (await import('node:http')).createServer((_req, res) => res.end('squatter'));
    const port = Number(new URL(n.url).port);
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      await expect(n.revive()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});

describe('time-driven faults', () => {
  it('stalled freezes the height; /health goes degraded after 60 s with a growing block age', async () => {
    const clock = manualClock();
    const f = await start([{ name: 'n' }, { name: 'peer' }], { blockTimeMs: 3_000, now: clock.now });
    const n = f.node('n');
    n.setFault('stalled');
    const frozen = n.height();
    clock.advance(30_000);
    expect(n.height()).toBe(frozen);
    expect((await rpc(n.url, 'claw_blockNumber')).result).toBe(frozen);
    expect(f.node('peer').height()).toBe(frozen + 10);
    let h = await getJson(`${n.url}/health`);
    expect(h.status).toBe('ok');
    expect(h.last_block_age_secs as number).toBeGreaterThanOrEqual(30);
    clock.advance(31_000);
    h = await getJson(`${n.url}/health`);
    expect(h.status).toBe('degraded');
    expect(h.height).toBe(frozen);
    expect(h.last_block_age_secs as number).toBeGreaterThanOrEqual(61);
    // The healthy peer stays ok with a fresh block.
    expect((await getJson(`${f.node('peer').url}/health`)).status).toBe('ok');
    n.setFault('none');
    expect(n.height()).toBe(f.node('peer').height());
    expect((await getJson(`${n.url}/health`)).status).toBe('ok');
  });

  it('adjust changes the version, the distance behind and the validator view of a running node', async () => {
    const clock = manualClock();
    const f = await start([{ name: 'n' }, { name: 'peer' }], { blockTimeMs: 3_000, now: clock.now });
    const n = f.node('n');
    const fullSet = ((await rpc(n.url, 'claw_getValidators')).result as unknown[]).length;
    n.adjust({ version: '9.9.9', heightOffset: 25, missingValidators: 2 });
    expect((await getJson(`${n.url}/health`)).version).toBe('9.9.9');
    expect((await rpc(n.url, 'claw_blockNumber')).result).toBe(f.node('peer').height() - 25);
    expect(((await rpc(n.url, 'claw_getValidators')).result as unknown[]).length).toBe(fullSet - 2);
    n.adjust({ heightOffset: 0, missingValidators: 0 });
    expect(n.height()).toBe(f.node('peer').height());
    expect(((await rpc(n.url, 'claw_getValidators')).result as unknown[]).length).toBe(fullSet);
    expect((await getJson(`${n.url}/health`)).version).toBe('9.9.9');
  });

  it('flapping alternates healthy and proxy_502 every half period', async () => {
    const clock = manualClock();
    const f = await start([{ name: 'n' }], { now: clock.now, flapPeriodMs: 4_000 });
    const n = f.node('n');
    n.setFault('flapping');
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push((await http(`${n.url}/health`)).status);
      clock.advance(2_000);
    }
    expect(seen).toEqual([200, 502, 200, 502]);
    expect(n.fault()).toBe('flapping');
  });
});
