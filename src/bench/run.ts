// `npm run bench`: 1,000 simulated nodes in a child process; then, each in a fresh process of its
// own so neither inherits the other's heap, (1) a bare undici loop doing the five requests of a
// node-poll and (2) the exporter polling the same fleet. Prints CPU per node-poll for both and
// their ratio, the exporter's RSS, and /metrics render time and size.
// `npm run bench -- --soak [minutes]`: random faults for a while; RSS over time and evidence figures.
// Figures are printed, never asserted: machines are shared and noisy.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startDaemon, type Daemon } from '../daemon.js';
import { PROBE_NAMES, type ExporterConfig } from '../domain.js';
import { simulatedFleetConfig } from '../demo.js';
import { createLogger } from '../logger.js';
import { methodsOf, SIM_FAULTS, type SimBuild } from '../sim/index.js';

interface SimNodeLine {
  name: string;
  network: string;
  url: string;
  namespace: string;
  build: SimBuild;
}

const cli = fileURLToPath(new URL('../cli.js', import.meta.url));

async function startSimulator(nodes: number): Promise<{ child: ChildProcess; nodes: SimNodeLine[]; control?: string }> {
  const child = spawn(process.execPath, [cli, 'simulate', '--nodes', String(nodes), '--layout', 'shared-port', '--networks', 'mainnet,testnet', '--control-port', '0', '--block-time-ms', '3000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const out: SimNodeLine[] = [];
  let control: string | undefined;
  const lines = createInterface({ input: child.stdout! });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  for await (const line of lines) {
    const msg = JSON.parse(line) as Record<string, unknown>;
    if (msg.event === 'node') out.push(msg as unknown as SimNodeLine);
    if (msg.event === 'control' && typeof msg.url === 'string') control = msg.url;
    if (msg.event === 'ready') break;
  }
  clearTimeout(deadline);
  if (out.length !== nodes) throw new Error(`simulator announced ${out.length} nodes, expected ${nodes}`);
  return { child, nodes: out, control };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The requests the exporter makes for one node-poll, with no parsing beyond reading bodies: the
 * five of a current build, and without the methods an older build lacks (the exporter learns
 * those once and then re-checks them rarely), so both sides send the same requests.
 */
async function bareNodePoll(agent: Agent, node: SimNodeLine, id: number): Promise<void> {
  const get = async (path: string) => {
    const res = await request(node.url + path, { dispatcher: agent });
    await res.body.text();
  };
  const rpc = async (method: string) => {
    const res = await request(node.url + '/', {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: `${node.namespace}_${method}`, params: [] }),
    });
    await res.body.text();
  };
  const methods = new Set(methodsOf(node.build));
  await Promise.all([
    get('/health'),
    get('/metrics'),
    ...['blockNumber', 'getMiningStats', 'getValidators'].filter((m) => methods.has(m)).map((m) => rpc(m)),
  ]);
}

/** Paced like the scheduler: each round spreads the node-polls evenly over the interval. */
async function bareLoop(nodes: SimNodeLine[], rounds: number, intervalMs: number): Promise<{ cpuPerPollMs: number; polls: number }> {
  const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000 });
  await Promise.all(nodes.slice(0, 50).map((n, i) => bareNodePoll(agent, n, i))); // warm up sockets
  const start = cpuMs();
  let polls = 0;
  const pending: Promise<void>[] = [];
  for (let r = 0; r < rounds; r++) {
    const roundStart = Date.now();
    for (let i = 0; i < nodes.length; i++) {
      const due = roundStart + (i * intervalMs) / nodes.length;
      const wait = due - Date.now();
      if (wait > 1) await sleep(wait);
      pending.push(bareNodePoll(agent, nodes[i]!, i).then(() => void polls++));
    }
    const rest = roundStart + intervalMs - Date.now();
    if (rest > 0) await sleep(rest);
  }
  await Promise.all(pending);
  const used = cpuMs() - start;
  await agent.close();
  return { cpuPerPollMs: used / polls, polls };
}

function configFor(nodes: SimNodeLine[], intervalMs: number, evidenceDir: string): ExporterConfig {
  return simulatedFleetConfig(nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs,
    timeoutMs: Math.min(5_000, intervalMs - 1),
    evidenceDir,
    concurrency: 128,
    labels: () => ({ role: 'bench' }),
  });
}

/** Node-polls so far: runs of the health probe, which every node has on every tick. */
function nodePolls(d: Daemon): number {
  let runs = 0;
  for (const n of d.state.nodes()) runs += n.probes.get('health')?.runs ?? 0;
  return runs;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const res = await request(url + '/metrics', { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { ms: performance.now() - t0, bytes: body.length };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

const me = fileURLToPath(import.meta.url);

/** Runs one phase in a fresh process and returns the JSON it prints last. */
async function phase(name: 'bare' | 'exporter', args: string[]): Promise<Record<string, number>> {
  const v8flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, ['--expose-gc', ...v8flags, me, '--phase', name, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = '';
  for await (const line of createInterface({ input: child.stdout! })) last = line;
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`bench phase ${name} exited with ${code}`);
  return JSON.parse(last) as Record<string, number>;
}

async function bareMain(nodes: SimNodeLine[], rounds: number, intervalMs: number): Promise<void> {
  const r = await bareLoop(nodes, rounds, intervalMs);
  console.log(JSON.stringify({ cpuPerPollMs: r.cpuPerPollMs, polls: r.polls, rss: process.memoryUsage().rss }));
}

async function exporterMain(nodes: SimNodeLine[], rounds: number, intervalMs: number, dir: string): Promise<void> {
  const daemon = await startDaemon(configFor(nodes, intervalMs, join(dir, 'evidence')), { logger: createLogger({ level: 'warn' }) });
  try {
    const readyBy = Date.now() + 3 * intervalMs + 30_000;
    while (!daemon.ready() && Date.now() < readyBy) await sleep(100);
    await sleep(intervalMs); // warm-up round: namespace detection, JIT
    const polls0 = nodePolls(daemon);
    const cpu0 = cpuMs();
    await sleep(rounds * intervalMs);
    const cpuUsed = cpuMs() - cpu0;
    const polls = nodePolls(daemon) - polls0;
    // Steady state as Prometheus would see it: one gzip scrape per interval while polling goes on.
    let rssPolling = 0;
    for (let i = 0; i < rounds; i++) {
      await scrape(daemon.url, { 'accept-encoding': 'gzip' });
      await sleep(intervalMs);
      rssPolling = Math.max(rssPolling, process.memoryUsage().rss);
    }
    // Render time in the process (what the goal is about), then whole scrapes over loopback.
    const renders: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      bytes = (await daemon.metricsView().render('text')).body.length;
      renders.push(performance.now() - t0);
    }
    const scrapes: number[] = [];
    for (let i = 0; i < 5; i++) scrapes.push((await scrape(daemon.url)).ms);
    const gz: number[] = [];
    for (let i = 0; i < 5; i++) gz.push((await scrape(daemon.url, { 'accept-encoding': 'gzip' })).ms);
    const rss = process.memoryUsage().rss;
    (globalThis as { gc?: () => void }).gc?.();
    console.log(
      JSON.stringify({ cpuPerPollMs: cpuUsed / polls, polls, rssPolling, renderMs: median(renders), bytes, scrapeMs: median(scrapes), gzipScrapeMs: median(gz), rss, heapAfterGc: process.memoryUsage().heapUsed }),
    );
  } finally {
    await daemon.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '4' },
      interval: { type: 'string', default: '5000' },
      soak: { type: 'boolean', default: false },
      minutes: { type: 'string', default: '10' },
      phase: { type: 'string' },
      fleet: { type: 'string' },
      dir: { type: 'string' },
    },
  });
  const count = Number(values.nodes);
  const rounds = Number(values.rounds);
  const intervalMs = Number(values.interval);
  if (values.phase) {
    const nodes = JSON.parse(readFileSync(values.fleet!, 'utf8')) as SimNodeLine[];
    if (values.phase === 'bare') return bareMain(nodes, rounds, intervalMs);
    return exporterMain(nodes, rounds, intervalMs, values.dir!);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lfe-bench-'));
  const sim = await startSimulator(count);
  try {
    if (values.soak) {
      console.log(`simulator: ${count} nodes (shared-port, separate process), interval ${intervalMs} ms, soak ${values.minutes} min`);
      await soak(sim.nodes, sim.control, Number(values.minutes), intervalMs, dir);
      return;
    }
    console.log(`simulator: ${count} nodes (shared-port, separate process), interval ${intervalMs} ms, ${rounds} measured rounds; each side in its own process`);
    const fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(sim.nodes));
    const common = ['--fleet', fleetFile, '--rounds', String(rounds), '--interval', String(intervalMs), '--dir', dir];
    const bare = await phase('bare', common);
    console.log(`bare undici loop:  ${bare.polls} node-polls, CPU ${bare.cpuPerPollMs!.toFixed(3)} ms per node-poll, RSS ${mb(bare.rss!)} MB`);
    const exp = await phase('exporter', common);
    console.log(
      `exporter:          ${Math.round(exp.polls!)} node-polls, CPU ${exp.cpuPerPollMs!.toFixed(3)} ms per node-poll (scheduling, requests, parsing, state; methods a build lacks are re-checked rarely, not polled)`,
    );
    const ratio = exp.cpuPerPollMs! / bare.cpuPerPollMs!;
    console.log(`ratio exporter/bare: ${ratio.toFixed(2)}  (goal <= 1.5: ${ratio <= 1.5 ? 'met' : 'NOT met'})`);
    console.log(
      `/metrics for ${count} nodes: render ${exp.renderMs!.toFixed(1)} ms median of 15 (goal < 100 ms: ${exp.renderMs! < 100 ? 'met' : 'NOT met'}), ${mb(exp.bytes!)} MB; ` +
        `whole scrape over loopback ${exp.scrapeMs!.toFixed(1)} ms, with gzip ${exp.gzipScrapeMs!.toFixed(1)} ms`,
    );
    // The goal is judged on the steady state (polling, one scrape per interval, as Prometheus does);
    // the burst figure shows the worst case of scrapes arriving back to back.
    console.log(
      `RSS of the exporter process: peak ${mb(exp.rssPolling!)} MB polling with one scrape per interval (goal < 200 MB: ${exp.rssPolling! < 200 * 1024 * 1024 ? 'met' : 'NOT met'}); ` +
        `${mb(exp.rss!)} MB after a burst of 25 back-to-back scrapes; heap after a full GC ${mb(exp.heapAfterGc!)} MB`,
    );
  } finally {
    sim.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Random faults on random nodes through the simulator's control API; RSS sampled over time. */
async function soak(nodes: SimNodeLine[], control: string | undefined, minutes: number, intervalMs: number, dir: string): Promise<void> {
  if (!control) throw new Error('simulator has no control API');
  const daemon = await startDaemon(configFor(nodes, intervalMs, join(dir, 'evidence')), { logger: createLogger({ level: 'error' }) });
  const faults = SIM_FAULTS.filter((f) => f !== 'down');
  const end = Date.now() + minutes * 60_000;
  const sampleEvery = Math.min(30_000, (minutes * 60_000) / 10);
  let nextSample = Date.now();
  let changes = 0;
  console.log('soak: t(s)  rss(MB)  heap(MB)  evidence(MB)  records  dropped  writeErrors');
  const t0 = Date.now();
  try {
    while (Date.now() < end) {
      // Every second, a few nodes change fault (about 10% of the fleet faulty at any time).
      for (let k = 0; k < 5; k++) {
        const node = nodes[Math.floor(Math.random() * nodes.length)]!;
        const fault = Math.random() < 0.5 ? 'none' : faults[Math.floor(Math.random() * faults.length)]!;
        const res = await request(`${control}/nodes/${encodeURIComponent(node.name)}/fault`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fault }),
        });
        await res.body.dump();
        changes++;
      }
      if (Date.now() >= nextSample) {
        nextSample += sampleEvery;
        await scrape(daemon.url);
        const st = daemon.evidence!.stats();
        const records = [...st.recordsByNode.values()].reduce((a, b) => a + b, 0);
        const m = process.memoryUsage();
        console.log(
          `soak: ${String(Math.round((Date.now() - t0) / 1000)).padStart(5)}  ${mb(m.rss).padStart(7)}  ${mb(m.heapUsed).padStart(8)}  ${mb(st.bytes).padStart(12)}  ${String(records).padStart(7)}  ${String(st.dropped).padStart(7)}  ${String(st.writeErrors).padStart(11)}`,
        );
      }
      await sleep(1000);
    }
    console.log(`soak: ${changes} fault changes over ${minutes} min`);
  } finally {
    await daemon.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
