// A node's /metrics answer with its last answer's shape (same text around the values) is read by
// values alone and its lines made from a shared plan. Whatever the path, the re-exposed lines, the
// family headers, every count (budget, truncations, secrets) and every error must be exactly what
// the full parse makes of the same answer: checked against expectations recorded from the code
// before shapes existed (record-upstream.mjs), against the full parse on the simulator's live
// answers (every build and fault mode), and on random answers whose values change poll to poll.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeValues } from '../../src/domain.js';
import {
  DEFAULT_UPSTREAM_BUDGET,
  FleetUpstream,
  parseExposition,
  prepareUpstream,
  type PreparedUpstream,
  type UpstreamBudget,
} from '../../src/exposition/index.js';
import type { FamilyHeaders } from '../../src/exposition/familyHeaders.js';
import { shapeTableSize } from '../../src/exposition/shape.js';
import { metricsProbe, type MetricsProbeData } from '../../src/probes/metrics.js';
import type { ParseContext } from '../../src/probes/types.js';
import { ProbeError } from '../../src/probes/errors.js';
import { SIM_FAULTS, SimFleet } from '../../src/sim/index.js';

interface Expect {
  error?: string;
  reason?: string;
  lines?: string;
  ends?: number[];
  families?: number[];
  secret?: number;
  dropped?: number;
  truncations?: number;
}
interface Recorded {
  secret: string;
  budgets: Record<string, UpstreamBudget>;
  families: FamilyHeaders[];
  sequences: Array<{
    name: string;
    budget: string;
    node: string;
    network: string;
    steps: Array<{ text: string; expect: Expect }>;
  }>;
}

const recorded = JSON.parse(
  readFileSync(new URL('../fixtures/exposition/upstream-recorded.json', import.meta.url), 'utf8'),
) as Recorded;
const SECRET = recorded.secret;

/** One node as the daemon runs it: its prober's parse context, its state, and the upstream view. */
function daemonNode(name: string, network: string, budget: UpstreamBudget, secrets: string[] = [SECRET]) {
  const ctx: ParseContext = { budget: { upstream: budget, maxValidators: 100 } };
  const values: NodeValues = { upstreamVersion: 0 };
  const node = { target: { name, network }, ...values };
  const scrub = (t: string) => secrets.reduce((s, secret) => s.split(secret).join('[REDACTED]'), t);
  const upstream = new FleetUpstream(() => [node], { scrub, scrubVersion: () => secrets.length });
  let shapeReads = 0;
  /** One answer: what the probe reports (error or data), then the node's prepared lines. */
  const poll = (text: string): { error: ProbeError } | { prepared: PreparedUpstream; node: typeof node } => {
    let data: MetricsProbeData;
    try {
      data = metricsProbe.parse(text, ctx);
    } catch (err) {
      return { error: err as ProbeError };
    }
    if (!Array.isArray(data.value) && data.value.families === undefined) shapeReads++;
    metricsProbe.apply(node, data, 0);
    return { prepared: upstream.prepare(node)!, node };
  };
  return { poll, shapeReads: () => shapeReads, scrub };
}

/** What the full parse and prepareUpstream make of an answer, in the recorded form. */
function fullPath(
  text: string,
  budget: UpstreamBudget,
  name: string,
  network: string,
  scrub: (t: string) => string,
  truncations: number,
): Expect {
  let parsed;
  try {
    parsed = parseExposition(text, { budget });
  } catch (err) {
    return { error: `GET /metrics: ${(err as Error).message}`.slice(0, 300), reason: 'invalid_response' };
  }
  const p = prepareUpstream(name, network, parsed.families, { scrub });
  return {
    lines: p.bytes.toString('utf8'),
    ends: [...p.ends],
    families: p.families as never,
    secret: p.droppedSecretSamples,
    dropped: parsed.droppedSamples,
    truncations: truncations + (parsed.droppedSamples > 0 ? 1 : 0),
  };
}

type Outcome = ReturnType<ReturnType<typeof daemonNode>['poll']>;

function asExpect(out: Outcome, families: (f: FamilyHeaders) => unknown = (f) => f): Expect {
  if ('error' in out) return { error: out.error.message, reason: out.error.reason };
  const { prepared: p, node } = out;
  return {
    lines: p.bytes.toString('utf8'),
    ends: [...p.ends],
    families: p.families.map(families) as never,
    secret: p.droppedSecretSamples,
    dropped: node.upstreamDropped,
    truncations: node.upstreamTruncations ?? 0,
  };
}

describe('answers read by shape, against expectations recorded before shapes', () => {
  it('gives the recorded lines, headers, counts and errors for every answer of every node, in poll order', () => {
    let shapeReads = 0;
    for (const seq of recorded.sequences) {
      const n = daemonNode(seq.node, seq.network, recorded.budgets[seq.budget]!);
      seq.steps.forEach((step, i) => {
        const expected = step.expect.families
          ? { ...step.expect, families: step.expect.families.map((k) => recorded.families[k]) }
          : step.expect;
        const got = asExpect(n.poll(step.text));
        expect(got, `${seq.name}, answer ${i + 1}`).toEqual(expected);
        if (got.lines !== undefined)
          expect(Buffer.byteLength(got.lines), `${seq.name}, answer ${i + 1}`).toBe(got.ends!.at(-1) ?? 0);
      });
      shapeReads += n.shapeReads();
    }
    // Most answers after the first of a node have its shape: the recorded corpus exercises that path.
    expect(shapeReads).toBeGreaterThan(80);
  });

  it('gives the recorded results through the full parse too', () => {
    for (const seq of recorded.sequences) {
      let truncations = 0;
      const scrub = (t: string) => t.split(SECRET).join('[REDACTED]');
      seq.steps.forEach((step, i) => {
        const got = fullPath(step.text, recorded.budgets[seq.budget]!, seq.node, seq.network, scrub, truncations);
        truncations = got.truncations ?? truncations;
        const expected = step.expect.families
          ? { ...step.expect, families: step.expect.families.map((k) => recorded.families[k]) }
          : step.expect;
        expect(got, `${seq.name}, answer ${i + 1}`).toEqual(expected);
      });
    }
  });
});

describe("the simulator's live answers", () => {
  let clock = Date.parse('2026-03-01T00:00:00Z');
  let fleet: SimFleet;
  const specs = (['earliest', 'staking', 'current'] as const).flatMap((build) =>
    SIM_FAULTS.filter((f) => f !== 'down' && f !== 'hang').map((fault, i) => ({
      name: `${build}-${fault}`,
      build,
      fault,
      heightOffset: i % 3,
      peers: i,
    })),
  );
  beforeAll(async () => {
    fleet = await SimFleet.start(specs, {
      now: () => clock,
      blockTimeMs: 1_500,
      slowBodyBytes: 1 << 20,
      slowBodyTickMs: 1,
    });
  });
  afterAll(() => fleet.close());

  it('are re-exposed as the full parse re-exposes them, poll after poll, for every build and fault mode', async () => {
    const nodes = new Map(specs.map((s) => [s.name, daemonNode(s.name, 'simnet', DEFAULT_UPSTREAM_BUDGET)]));
    const truncations = new Map<string, number>();
    const healthy = new Map<string, number>();
    for (let round = 0; round < 4; round++) {
      clock += 1_000 + round * 7_000;
      for (const simNode of fleet.nodes) {
        const res = await fetch(`${simNode.url}/metrics`);
        // Error pages too (the prober refuses them before parsing): hostile input for the reader.
        const text = await res.text();
        const n = nodes.get(simNode.name)!;
        const want = fullPath(
          text,
          DEFAULT_UPSTREAM_BUDGET,
          simNode.name,
          'simnet',
          n.scrub,
          truncations.get(simNode.name) ?? 0,
        );
        truncations.set(simNode.name, want.truncations ?? 0);
        expect(asExpect(n.poll(text)), `${simNode.name}, round ${round}`).toEqual(want);
        if (res.status === 200) healthy.set(simNode.name, (healthy.get(simNode.name) ?? 0) + 1);
      }
    }
    // Proxy and JSON error pages never parse; every node answering /metrics had its later answers read by shape alone.
    expect([...healthy.keys()].sort()).toEqual(
      specs
        .filter((s) => !/proxy|json_500/.test(s.fault))
        .map((s) => s.name)
        .sort(),
    );
    for (const [name, count] of healthy) expect(nodes.get(name)!.shapeReads(), name).toBe(count - 1);
  });
});

// Random answers, then the same lines with new values in every form (valid or not, with and
// without timestamps), as a node's next polls; and now and then other lines.
const NAMES = ['a', 'a_total', 'a_count', 'a_bucket', 'h', 'h_sum', 'inf', 'x'];
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'] as const;
const VALUES = ['a', '', 'x"y', 'new\nline', SECRET, 'ünï', '0.5', '+Inf'];
const TOKENS = [
  '0',
  '7',
  '-1',
  '007',
  '1.5e3',
  '1e400',
  '-0',
  '+Inf',
  '-inf',
  'NaN',
  '.5',
  '123456789012345',
  '1234567890123456789',
  '0x10',
  'abc',
  '',
  '1 1700000000000',
  '1\t-5',
  '1 1.5',
  '1 2 3',
  '1 ',
  '1\u00a0',
  '2\r',
];
const esc = (v: string) => v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
const familyArb = fc.record({
  name: fc.constantFrom(...NAMES),
  type: fc.constantFrom(...TYPES),
  help: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
  series: fc.array(
    fc.dictionary(fc.constantFrom('node', 'path', 'le', 'quantile', 'exported_network'), fc.constantFrom(...VALUES), {
      maxKeys: 2,
    }),
    { minLength: 1, maxLength: 3 },
  ),
});
type Fam = typeof familyArb extends fc.Arbitrary<infer T> ? T : never;

function linesOf(f: Fam): string[] {
  const out = [
    ...(f.help !== undefined
      ? [`# HELP ${f.name} ${f.help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'))}`]
      : []),
    `# TYPE ${f.name} ${f.type}`,
  ];
  const s = (name: string, labels: Record<string, string>) =>
    `${name}{${Object.entries(labels)
      .map(([k, v]) => `${k}="${esc(v)}"`)
      .join(',')}} 1`;
  for (const labels of f.series) {
    if (f.type === 'histogram')
      out.push(
        s(`${f.name}_bucket`, { ...labels, le: '0.5' }),
        s(`${f.name}_bucket`, { ...labels, le: '+Inf' }),
        s(`${f.name}_sum`, labels),
        s(`${f.name}_count`, labels),
      );
    else if (f.type === 'summary')
      out.push(s(f.name, { ...labels, quantile: '0.9' }), s(`${f.name}_sum`, labels), s(`${f.name}_count`, labels));
    else out.push(s(f.name, labels));
  }
  return out;
}

function withValues(lines: string[], picks: number[]): string[] {
  let k = 0;
  return lines.map((l) =>
    l.startsWith('#') ? l : l.replace(/ 1$/, ` ${TOKENS[picks[k++ % picks.length]! % TOKENS.length]}`),
  );
}

const answersArb = fc.record({
  families: fc.array(familyArb, { maxLength: 4 }),
  polls: fc.array(
    fc.record({ picks: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), other: fc.boolean(), crlf: fc.boolean() }),
    { minLength: 2, maxLength: 5 },
  ),
  small: fc.boolean(),
});

describe('random answers whose values change from poll to poll', () => {
  it('are re-exposed exactly as the full parse re-exposes them', () => {
    fc.assert(
      fc.property(answersArb, ({ families, polls, small }) => {
        const budget: UpstreamBudget = small
          ? { maxSeries: 5, maxBytes: 2_000, maxFamilies: 3, maxHelpChars: 4 }
          : DEFAULT_UPSTREAM_BUDGET;
        const n = daemonNode('n1', 'net', budget);
        let truncations = 0;
        const base = families.flatMap(linesOf);
        for (const poll of polls) {
          // `other`: one family fewer, a node that changed build between polls.
          const lines = withValues(poll.other ? families.slice(1).flatMap(linesOf) : base, poll.picks);
          const text = lines.join(poll.crlf ? '\r\n' : '\n') + '\n';
          const want = fullPath(text, budget, 'n1', 'net', n.scrub, truncations);
          truncations = want.truncations ?? truncations;
          expect(asExpect(n.poll(text))).toEqual(want);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('secrets learnt after a shape was planned', () => {
  it("drop a series that now holds one at the node's next answer", () => {
    const secrets = ['zz-not-seen'];
    const n = daemonNode('n1', 'net', DEFAULT_UPSTREAM_BUDGET, secrets);
    const text = (v: number) =>
      `# HELP t Token in use: tok-later-1\n# TYPE t gauge\nt{key="tok-later-1"} ${v}\nt{key="plain"} ${v}\n`;
    const first = asExpect(n.poll(text(1)));
    expect(first.lines).toContain('key="tok-later-1"');
    secrets.push('tok-later-1');
    const second = asExpect(n.poll(text(2)));
    expect(n.shapeReads()).toBe(1);
    expect(second.lines).toBe('ledger_upstream_t{node="n1",network="net",key="plain"} 2\n');
    expect(second.secret).toBe(1);
    expect(second).toEqual(fullPath(text(2), DEFAULT_UPSTREAM_BUDGET, 'n1', 'net', n.scrub, 0));
  });

  it('are honoured without a version too: a plan made with a scrub then serves one answer only', () => {
    const secrets: string[] = [];
    const scrub = (t: string) => secrets.reduce((s, x) => s.split(x).join('[REDACTED]'), t);
    const ctx: ParseContext = { budget: { upstream: DEFAULT_UPSTREAM_BUDGET, maxValidators: 10 } };
    const node = { target: { name: 'n', network: 'net' }, upstreamVersion: 0 } as NodeValues & {
      target: { name: string; network: string };
    };
    const upstream = new FleetUpstream(() => [node], { scrub });
    const poll = (v: number) => {
      metricsProbe.apply(node, metricsProbe.parse(`a{k="late-secret"} ${v}\n`, ctx), 0);
      return upstream.prepare(node)!;
    };
    expect(poll(1).bytes.toString()).toContain('late-secret');
    secrets.push('late-secret');
    expect(poll(2).bytes.toString()).toBe('');
  });
});

describe('shapes kept', () => {
  it('are shared by nodes sending the same lines, and the shared table stays bounded', () => {
    const a = daemonNode('a', 'net', DEFAULT_UPSTREAM_BUDGET);
    const before = shapeTableSize().entries;
    a.poll('# TYPE shared_x gauge\nshared_x 1\n');
    const b = daemonNode('b', 'net', DEFAULT_UPSTREAM_BUDGET);
    b.poll('# TYPE shared_x gauge\nshared_x 2\n');
    expect(shapeTableSize().entries).toBe(before + 1);
    // Nodes that each send lines of their own.
    for (let i = 0; i < 10_050; i++) daemonNode(`c${i}`, 'net', DEFAULT_UPSTREAM_BUDGET).poll(`own{id="${i}"} 1\n`);
    expect(shapeTableSize().entries).toBeLessThanOrEqual(10_000);
  });

  it('are made ever more rarely for labels changing every poll, and at once after a single change', () => {
    const churn = daemonNode('churn', 'net', DEFAULT_UPSTREAM_BUDGET);
    const before = shapeTableSize().entries;
    const answers = 200;
    for (let i = 0; i < answers; i++) {
      const text = `# TYPE last_block gauge\nlast_block{hash="0x${i.toString(16)}-churn"} ${i}\n`;
      expect(asExpect(churn.poll(text))).toEqual(
        fullPath(text, DEFAULT_UPSTREAM_BUDGET, 'churn', 'net', churn.scrub, 0),
      );
    }
    const made = shapeTableSize().entries - before;
    // Made at answers 1, 3, 7, 15, 31, 63, 127 and 192 (backing off up to 64 answers).
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(12);
    expect(churn.shapeReads()).toBe(0);

    const steady = daemonNode('steady', 'net', DEFAULT_UPSTREAM_BUDGET);
    const v1 = (v: number) => `# TYPE h gauge\nh ${v}\n`;
    const v2 = (v: number) => `# TYPE h gauge\nh ${v}\n# TYPE up gauge\nup 1\n`;
    for (const text of [v1(1), v1(2), v2(3), v2(4), v2(5)]) steady.poll(text);
    expect(steady.shapeReads()).toBe(3);
  });

  it('are not made for an answer with over 64 KiB around its values: it is parsed in full each poll', () => {
    const n = daemonNode('n', 'net', { ...DEFAULT_UPSTREAM_BUDGET, maxBytes: 1 << 24 });
    const text = (v: number) => `# ${'c'.repeat(70 * 1024)}\nbig ${v}\n`;
    expect(asExpect(n.poll(text(1))).lines).toBe('ledger_upstream_big{node="n",network="net"} 1\n');
    expect(asExpect(n.poll(text(2))).lines).toBe('ledger_upstream_big{node="n",network="net"} 2\n');
    expect(n.shapeReads()).toBe(0);
  });
});
