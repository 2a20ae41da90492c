// Probers of one pool share their options (budget, limits), but what a probe keeps from a node's last
// answer to read the next one cheaply (the /metrics answer's shape, the validator list) is each node's
// own: nodes of different builds or networks polled in turn still take the cheap path every poll.
import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpOutcome, HttpRequest } from '../../src/http/client.js';
import { NodeProber, type ProberOptions } from '../../src/probe/prober.js';
import type { MetricsProbeData } from '../../src/probes/metrics.js';
import type { ValidatorsProbeData } from '../../src/probes/validators.js';
import { Secrets } from '../../src/redact.js';
import { target } from '../support/targets.js';

/** Node answers by host: a /metrics text and a validator list, each of the node's own shape. */
interface Answers {
  metrics: (poll: number) => string;
  validators: Array<{ address: string; stake: string; weight: number; agentScore: number }>;
}

function client(byHost: Record<string, Answers>, polls: Map<string, number>): HttpClient {
  const send = (req: HttpRequest): Promise<HttpOutcome> => {
    const url = (req.url as { url: URL }).url;
    const a = byHost[url.host]!;
    const poll = polls.get(url.host) ?? 0;
    const text =
      req.method === 'POST'
        ? JSON.stringify({
            jsonrpc: '2.0',
            id: (JSON.parse(String(req.body)) as { id: number }).id,
            result: a.validators,
          })
        : a.metrics(poll);
    const headers = { 'content-type': req.method === 'POST' ? 'application/json' : 'text/plain' };
    const response = { status: 200, headers, body: Buffer.from(text), truncated: false };
    return Promise.resolve({ ok: true, response, durationMs: 1 });
  };
  return { secrets: new Secrets(), send } as unknown as HttpClient;
}

const validator = (hex: string, stake: number) => ({
  address: hex.repeat(32),
  stake: String(stake),
  weight: 1,
  agentScore: 0,
});

const answers: Record<string, Answers> = {
  'node-a:9710': {
    metrics: (i) =>
      `# TYPE ledger_peers gauge\nledger_peers ${i}\n# TYPE ledger_height gauge\nledger_height ${100 + i}\n`,
    validators: [validator('ab', 10), validator('cd', 20)],
  },
  'node-b:9710': {
    metrics: (i) => `# TYPE ledger_mempool gauge\nledger_mempool{pool="main"} ${i}\n`,
    validators: [validator('ef', 30)],
  },
};

describe('probers sharing their options', () => {
  it('read each node against its own last answer, whatever node was read in between', async () => {
    const polls = new Map<string, number>();
    const opts: ProberOptions = {
      client: client(answers, polls),
      maxResponseBytes: 1 << 20,
      maxUpstreamSeries: 100,
      now: () => 0,
    };
    const probers = ['node-a', 'node-b'].map(
      (n) => new NodeProber(target(n, { url: `http://${n}:9710`, rpcNamespace: 'claw' }), opts),
    );
    const reads: Record<string, Array<{ parsed: boolean; values: number[] | undefined }>> = { a: [], b: [] };
    const lists: Record<string, unknown[]> = { a: [], b: [] };
    for (let poll = 0; poll < 3; poll++) {
      for (const [i, p] of probers.entries()) {
        const key = i === 0 ? 'a' : 'b';
        polls.set(`node-${key}:9710`, poll);
        const m = await p.run('metrics');
        const v = await p.run('validators');
        if (m.kind !== 'ok' || v.kind !== 'ok') throw new Error(`probe failed: ${JSON.stringify([m, v])}`);
        const read = (m.data as MetricsProbeData).value;
        if (Array.isArray(read)) throw new Error('expected an UpstreamRead');
        reads[key]!.push({ parsed: read.families !== undefined, values: read.values });
        lists[key]!.push((v.data as ValidatorsProbeData).value);
      }
    }
    // Parsed in full once each; after that only the values are read, with this poll's values.
    expect(reads.a!.map((r) => r.parsed)).toEqual([true, false, false]);
    expect(reads.b!.map((r) => r.parsed)).toEqual([true, false, false]);
    expect(reads.a!.map((r) => r.values)).toEqual([
      [0, 100],
      [1, 101],
      [2, 102],
    ]);
    expect(reads.b!.map((r) => r.values)).toEqual([[0], [1], [2]]);
    // A list that says the same is the node's previous list itself, each node its own.
    expect(lists.a![1]).toBe(lists.a![0]);
    expect(lists.a![2]).toBe(lists.a![0]);
    expect(lists.b![2]).toBe(lists.b![0]);
    expect(lists.b![0]).toEqual([{ address: 'ef'.repeat(32), stake: 30n, weight: 1, agentScore: 0 }]);
  });
});
