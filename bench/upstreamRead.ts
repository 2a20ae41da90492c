// `node dist-bench/bench/upstreamRead.js` (after `npx tsc -p bench/tsconfig.json`): CPU per
// node-poll of turning a node's /metrics answer into its re-exposed lines, on the simulator's real
// answers (every build, heights moving between polls), two ways alternated in the same minutes:
// the full parse (parseExposition + prepareUpstream) and the daemon's path (the metrics probe's
// parse and apply, then FleetUpstream.prepare, which reads an answer of the last shape by its
// values). Also a node whose label values change every poll (never the same shape). Medians of
// several rounds are printed, never asserted: the machine is shared and noisy.
import { DEFAULT_UPSTREAM_BUDGET, FleetUpstream, parseExposition, prepareUpstream } from '../src/exposition/index.js';
import { metricsProbe } from '../src/probes/metrics.js';
import type { ParseContext } from '../src/probes/types.js';
import { SimFleet, type SimBuild } from '../src/sim/index.js';

const NODES = 30;
const POLLS = 20_000;
const ROUNDS = 7;
const scrub = (t: string) => t.split('tok-bench-secret').join('[REDACTED]');

async function simulatorAnswers(): Promise<string[][]> {
  let clock = Date.now();
  const builds: SimBuild[] = ['earliest', 'staking', 'current'];
  const specs = Array.from({ length: NODES }, (_, i) => ({
    name: `n${i}`,
    build: builds[i % 3],
    heightOffset: i % 5,
    peers: i % 9,
  }));
  const fleet = await SimFleet.start(specs, { now: () => clock, blockTimeMs: 1_000 });
  const answers: string[][] = specs.map(() => []);
  for (let poll = 0; poll < 4; poll++) {
    clock += 7_000;
    for (const [i, node] of fleet.nodes.entries()) answers[i]!.push(await (await fetch(`${node.url}/metrics`)).text());
  }
  await fleet.close();
  return answers;
}

type Way = (node: number, text: string) => void;

function fullParse(): Way {
  return (node, text) =>
    void prepareUpstream(
      `node-${node}`,
      'simnet',
      parseExposition(text, { budget: DEFAULT_UPSTREAM_BUDGET }).families,
      { scrub },
    );
}

function daemonPath(): Way {
  const nodes = Array.from({ length: NODES }, (_, i) => ({
    target: { name: `node-${i}`, network: 'simnet' },
    upstreamVersion: 0,
  }));
  const contexts: ParseContext[] = nodes.map(() => ({
    budget: { upstream: { ...DEFAULT_UPSTREAM_BUDGET }, maxValidators: 1_000 },
  }));
  const upstream = new FleetUpstream(() => nodes, { scrub, scrubVersion: () => 1 });
  return (i, text) => {
    const node = nodes[i]!;
    metricsProbe.apply(node, metricsProbe.parse(text, contexts[i]!), 0);
    upstream.prepare(node);
  };
}

/** Microseconds of CPU per answer, median over rounds; each round runs both ways back to back. */
function compare(answers: (node: number, poll: number) => string, ways: Record<string, Way>): Record<string, number> {
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  const once = (way: Way, k: number) => way(k % NODES, answers(k % NODES, Math.floor(k / NODES)));
  for (const way of Object.values(ways)) for (let k = 0; k < POLLS; k++) once(way, k);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, way] of Object.entries(ways)) {
      const t0 = process.cpuUsage();
      for (let k = 0; k < POLLS; k++) once(way, k);
      const t = process.cpuUsage(t0);
      runs[name]!.push((t.user + t.system) / POLLS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return Object.fromEntries(Object.entries(runs).map(([k, xs]) => [k, median(xs)]));
}

function report(title: string, r: Record<string, number>): void {
  const full = r.full!;
  const daemon = r.daemon!;
  console.log(
    `${title}: full parse ${full.toFixed(1)} us, daemon path ${daemon.toFixed(1)} us per node-poll ` +
      `(${(full / daemon).toFixed(1)}x)`,
  );
}

const sim = await simulatorAnswers();
report(
  'simulator answers',
  compare((n, p) => sim[n]![p % sim[n]!.length]!, { full: fullParse(), daemon: daemonPath() }),
);
const churn = (n: number, p: number) => `${sim[n]![0]!}last_block{hash="0x${(p * 7919 + n).toString(16)}"} 1\n`;
report('a label value changing every poll', compare(churn, { full: fullParse(), daemon: daemonPath() }));
