// Property: whatever field of whatever probe's answer a node echoes its own secrets into (the
// x-api-key value, the URL's password, the Basic token, raw or percent-encoded), what the probe
// keeps (its data, or the failure's message when the answer no longer parses) holds none of them.
// (The /metrics probe's series are scrubbed as they are rendered instead: see below.)
// The probes are run as the daemon runs them (NodeProber), on a client that answers in memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROBE_NAMES, type ProbeName } from '../../src/domain.js';
import type { HttpClient, HttpOutcome, HttpRequest } from '../../src/http/client.js';
import { scrubNodeData, nodeSecrets } from '../../src/probe/nodeText.js';
import { NodeProber } from '../../src/probe/prober.js';
import { nodeProbe } from '../../src/probes/registry.js';
import { basicToken, Secrets } from '../../src/redact.js';
import { target } from '../support/targets.js';

const API_KEY = 'k3y-of-the-node-8f2a';
const PASSWORD = 'p@ss word/91';
const URL_WITH_PASSWORD = `http://monitor:${encodeURIComponent(PASSWORD)}@127.0.0.1:9710`;
const TOKEN = basicToken(new URL(URL_WITH_PASSWORD));
/** Every form a node may echo a secret in. */
const FORMS = [API_KEY, PASSWORD, encodeURIComponent(PASSWORD), TOKEN, `Basic ${TOKEN}`];

/** A normal answer of each probe; every string in it (and every `§` of the text ones) is a field a secret may fill. */
const SAMPLES: Record<ProbeName, unknown> = {
  health: {
    status: 'ok',
    version: '0.5.8',
    chain_id: 'ledger-mainnet',
    genesis_hash: '0xabc',
    height: 10,
    epoch: 1,
    peer_count: 5,
    mempool_size: 0,
    last_block_age_secs: 1,
    uptime_secs: 100,
  },
  metrics: [
    '# HELP ledger_peers §',
    '# TYPE ledger_peers gauge',
    'ledger_peers{peer="§",region="§"} 3',
    '# HELP ledger_build_info §',
    'ledger_build_info{version="§",commit="§"} 1',
    '',
  ].join('\n'),
  blockNumber: 100,
  miningStats: {
    totalMiners: 3,
    activeMiners: 2,
    currentBlockReward: '1000000',
    miningUpgradeHeight: 5,
    upgraded: true,
  },
  validators: [
    { address: '0x' + 'ab'.repeat(20), stake: '1000', weight: 1, agentScore: 0.5, moniker: 'val-1' },
    { address: '0x' + 'cd'.repeat(20), stake: '2000', weight: 2, agentScore: 0.7, moniker: 'val-2' },
  ],
};

type Path = Array<string | number>;

/** The paths of the strings in a JSON sample. */
function stringPaths(v: unknown, at: Path = []): Path[] {
  if (typeof v === 'string') return [at];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringPaths(x, [...at, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => stringPaths(x, [...at, k]));
  return [];
}

function withAt(v: unknown, path: Path, put: (old: string) => string): unknown {
  if (path.length === 0) return put(v as string);
  const [head, ...rest] = path;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[head!] = withAt(copy[head!], rest, put);
  return copy;
}

/** The sample with field `slot` given the secret, as the node would send it (a body text, or a JSON-RPC result). */
function answerWith(probe: ProbeName, slot: number, put: (old: string) => string): unknown {
  const sample = SAMPLES[probe];
  if (typeof sample === 'string') {
    let i = 0;
    return sample.replace(/§/g, () => (i++ === slot ? put('x') : `plain-${i}`));
  }
  return withAt(sample, stringPaths(sample)[slot]!, put);
}

function slotsOf(probe: ProbeName): number {
  const sample = SAMPLES[probe];
  return typeof sample === 'string' ? sample.split('§').length - 1 : stringPaths(sample).length;
}

function clientAnswering(answer: unknown, secrets: Secrets): HttpClient {
  const send = (req: HttpRequest): Promise<HttpOutcome> => {
    const rpc = req.method === 'POST' ? (JSON.parse(String(req.body)) as { id: unknown }) : undefined;
    const text = rpc
      ? JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: answer })
      : typeof answer === 'string'
        ? answer
        : JSON.stringify(answer);
    const response = { status: 200, headers: {}, body: Buffer.from(text), truncated: false };
    return Promise.resolve({ ok: true, response, durationMs: 1 });
  };
  return { secrets, send } as unknown as HttpClient;
}

const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x));

describe("a node's answers are scrubbed of the node's own secrets", () => {
  // The metrics probe's series are scrubbed where they are rendered, a sample with a secret dropped
  // whole (test/system/hostile-nodes.test.ts): its kept data is checked there, not here.
  const kept = PROBE_NAMES.filter((p) => slotsOf(p) > 0 && !nodeProbe(p).scrubbedWhenRendered);

  it('covers every probe with text in its answer but the one scrubbed when rendered', () => {
    expect(kept).toEqual(['health', 'miningStats', 'validators']);
  });

  const probeWithSlot = fc
    .constantFrom(...kept)
    .chain((probe) => fc.tuple(fc.constant(probe), fc.nat({ max: slotsOf(probe) - 1 })));

  it('in every string field of every probe, whole or inside other text', async () => {
    await fc.assert(
      fc.asyncProperty(
        probeWithSlot,
        fc.constantFrom(...FORMS),
        fc.constantFrom('whole', 'prefix', 'suffix', 'inside'),
        async ([probe, slot], secret, where) => {
          const put = (old: string) =>
            where === 'whole'
              ? secret
              : where === 'prefix'
                ? `${secret}${old}`
                : where === 'suffix'
                  ? `${old}${secret}`
                  : `${old} (${secret}) ${old}`;
          const t = target('n1', {
            url: URL_WITH_PASSWORD,
            headers: { 'x-api-key': { value: API_KEY } },
            rpcNamespace: 'claw',
          });
          // The daemon's run-wide secrets hold the node's too (config/secrets.ts).
          const run = nodeSecrets(t.url, [API_KEY]);
          const prober = new NodeProber(t, {
            client: clientAnswering(answerWith(probe, slot, put), run),
            maxResponseBytes: 1 << 20,
            maxUpstreamSeries: 100,
          });
          const result = await prober.run(probe);
          const kept = json(result.kind === 'ok' ? result.data : result);
          for (const form of FORMS) expect(kept, `${probe} field ${slot}: ${form}`).not.toContain(form);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('in any JSON value, keys included, with shared parts left untouched', () => {
    const secrets = nodeSecrets(URL_WITH_PASSWORD, [API_KEY]);
    const withSecret = fc.tuple(fc.string(), fc.constantFrom(...FORMS), fc.string()).map(([a, s, b]) => `${a}${s}${b}`);
    fc.assert(
      fc.property(
        fc.letrec((tie) => ({
          value: fc.oneof(
            { depthSize: 'small' },
            fc.string(),
            withSecret,
            fc.integer(),
            fc.array(tie('value'), { maxLength: 4 }),
            fc.dictionary(fc.oneof(fc.string(), withSecret), tie('value'), { maxKeys: 4 }),
          ),
        })).value,
        (value) => {
          const before = JSON.stringify(value);
          const out = scrubNodeData(value, secrets);
          for (const form of FORMS) expect(JSON.stringify(out)).not.toContain(form);
          expect(JSON.stringify(value)).toBe(before);
          if (!FORMS.some((f) => before.includes(JSON.stringify(f).slice(1, -1)))) expect(out).toBe(value);
        },
      ),
      { numRuns: 500 },
    );
  });
});
