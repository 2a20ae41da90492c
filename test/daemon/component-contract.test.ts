// The pipeline knows no feature: what evidence, the agent platform and upstream do, any component
// does through the same hooks. A component here keeps the evidence records, adds a name to the
// evidence nodes, serves /api/evidence, adds a signal, and sees open/start/halt/stop/close in order
// (close in reverse order of the components), also when the server cannot listen.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonComponent, DaemonContext } from '../../src/daemon/component.js';
import { startPipeline } from '../../src/daemon/pipeline.js';
import type { EvidenceInput } from '../../src/evidence/record.js';
import { createLogger } from '../../src/logger.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig, target } from '../support/targets.js';

let node: Server;
let nodeUrl: string;

beforeAll(async () => {
  // A proxy in front of a dead node: every answer is a 502, which is evidence.
  node = createServer((_req, res) =>
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>'),
  );
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});

afterAll(async () => {
  node.closeAllConnections();
  await new Promise((r) => node.close(r));
});

const logger = createLogger({ level: 'silent' });

function keeper(events: string[], records: EvidenceInput[]): DaemonComponent {
  return {
    name: 'keeper',
    open: (ctx) => void events.push(`keeper:open:${ctx.initial.nodes.length}:${ctx.evidenceNodes().join(',')}`),
    recordEvidence: (input) => void records.push(input),
    evidenceNodes: () => ['extra-source'],
    evidenceApi: () => ({
      // An answer no store gives: /api/evidence is this component's.
      handle: async () => ({
        status: 418,
        body: { error: `kept by the test component: ${records.map((r) => `${r.node} ${r.status}`).join(', ')}` },
      }),
      read: async () => 'busy' as const,
    }),
    signals: () => ({ evidenceWriteErrors: 3 }),
    start: () => void events.push('keeper:start'),
    halt: () => void events.push('keeper:halt'),
    stop: () => void events.push('keeper:stop'),
    close: () => void events.push('keeper:close'),
  };
}

function reader(events: string[], seen: { ctx?: DaemonContext }): DaemonComponent {
  return {
    name: 'reader',
    open: () => void events.push('reader:open'),
    start: (ctx) => {
      seen.ctx = ctx;
      events.push('reader:start');
    },
    stop: () => void events.push('reader:stop'),
    close: () => void events.push('reader:close'),
  };
}

describe('the component contract', () => {
  it('joins an evidence keeper the way the evidence store joins, and runs the hooks in their order', async () => {
    const events: string[] = [];
    const records: EvidenceInput[] = [];
    const seen: { ctx?: DaemonContext } = {};
    const config = daemonConfig([target('behind-proxy', { url: nodeUrl, probes: ['health'] })]);
    const pipeline = await startPipeline(config, { logger, defaultMetrics: false }, [
      keeper(events, records),
      reader(events, seen),
    ]);
    try {
      expect(events).toEqual([
        'keeper:open:1:behind-proxy,extra-source',
        'reader:open',
        'keeper:start',
        'reader:start',
      ]);
      await waitFor(
        'a 502 recorded by the keeper',
        () => records.find((r) => r.node === 'behind-proxy' && r.status === 502),
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const res = await fetch(`${pipeline.url}/api/evidence`);
      expect(res.status).toBe(418);
      expect(((await res.json()) as { error: string }).error).toMatch(/^kept by the test component: behind-proxy 502/);
      // Signals merge: the pipeline's own, and what each component adds.
      expect(seen.ctx!.signals()).toMatchObject({ evidenceWriteErrors: 3 });
      expect(seen.ctx!.signals().pollOverruns).toBeInstanceOf(Map);
      expect(seen.ctx!.evidence).toBeDefined();
    } finally {
      await pipeline.close();
    }
    expect(events.slice(4)).toEqual(['keeper:halt', 'keeper:stop', 'reader:stop', 'reader:close', 'keeper:close']);
  });

  it('closes what opened, and starts nothing, when the server cannot listen', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    const events: string[] = [];
    try {
      const config = {
        ...daemonConfig([target('a', { url: nodeUrl, probes: ['health'] })]),
        listen: { host: '127.0.0.1', port },
      };
      await expect(
        startPipeline(config, { logger, defaultMetrics: false }, [keeper(events, []), reader(events, {})]),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((r) => busy.close(r));
    }
    expect(events).toEqual(['keeper:open:1:a,extra-source', 'reader:open', 'reader:close', 'keeper:close']);
  });
});
