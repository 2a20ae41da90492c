// The exporter as users run it (the built CLI in a child process) against simulated nodes:
// reload on file change and SIGHUP, graceful stop on SIGTERM/SIGINT with a probe hanging, and
// kill -9 during a burst of 5xx answers followed by a restart on the same evidence directory.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { readEvidence } from '../../src/evidence/index.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet, type SimNode } from '../../src/sim/index.js';
import {
  sampleValue,
  scrapeText,
  startExporter,
  sumOf,
  waitForMetrics,
  type ExporterChild,
  type LogLine,
} from '../support/exporterChild.js';
import { configYaml, readRawEvidence, writeAtomically, type NodeEntry } from '../support/lifecycleFiles.js';
import { waitFor } from '../support/processes.js';

let root: string;
let fleet: SimFleet;
const started: ExporterChild[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'lfe-lifecycle-'));
  fleet = await SimFleet.start(
    [
      { name: 'keep', network: 'main' },
      { name: 'gone', network: 'main' },
      { name: 'added', network: 'main' },
      { name: 'late', network: 'main' },
      { name: 'stuck', network: 'main', fault: 'hang' },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `burst-${i}`, network: 'main', fault: 'proxy_502' as const })),
    ],
    { layout: 'port-per-node', blockTimeMs: 1000 },
  );
});

afterEach(async () => {
  // A failed test must not leave an exporter running.
  await Promise.all(started.splice(0).map((e) => e.kill()));
});

afterAll(async () => {
  await fleet?.close();
  rmSync(root, { recursive: true, force: true });
});

function entry(node: SimNode, over: Partial<NodeEntry> = {}): NodeEntry {
  return { name: node.name, url: node.url, network: node.network, ...over };
}

async function launch(configPath: string, onSpawn?: (child: ChildProcess) => Promise<void>): Promise<ExporterChild> {
  const e = await startExporter(configPath, [], 20_000, onSpawn);
  started.push(e);
  return e;
}

function testDir(name: string): string {
  const d = join(root, name);
  mkdirSync(d);
  return d;
}

const reloads = (t: string, result: 'success' | 'failure') =>
  sampleValue(t, 'ledger_exporter_config_reloads_total', { result });
const up = (t: string, node: string) => sampleValue(t, 'ledger_node_up', { node });
const isReloadLog = (why: string, msg: string) => (l: LogLine) => l.msg === msg && l.why === why;

/** Whether process `pid` catches SIGHUP: bit 0 of SigCgt in /proc/<pid>/status (Linux). */
function catchesSighup(pid: number): boolean {
  const m = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m !== null && (BigInt(`0x${m[1]}`) & 1n) === 1n;
}

describe('reload', () => {
  it("applies a rewritten file without restart, keeps kept nodes' counters, rejects an invalid one", async () => {
    const d = testDir('reload');
    const file = join(d, 'exporter.yaml');
    const keep = fleet.node('keep');
    writeFileSync(file, configYaml({ nodes: [entry(keep), entry(fleet.node('gone'))] }));
    const ex = await launch(file);

    await waitForMetrics(
      ex.url,
      'keep and gone up',
      (t) => (up(t, 'keep') === 1 && up(t, 'gone') === 1 ? true : undefined),
      15_000,
      ex.output,
    );

    // Give the kept node some history: a few 5xx answers, then recovery, so its counters are non-zero and frozen.
    keep.setFault('proxy_502');
    await waitForMetrics(
      ex.url,
      'keep failing',
      (t) =>
        (sampleValue(t, 'ledger_probe_failures_total', { node: 'keep', probe: 'health', reason: 'http_5xx' }) ?? 0) >= 2
          ? true
          : undefined,
      15_000,
      ex.output,
    );
    keep.setFault('none');
    const before = await waitForMetrics(
      ex.url,
      'keep recovered',
      // Every 5xx answer's record synced too: one still being written would count after the reload.
      (t) =>
        sampleValue(t, 'ledger_probe_success', { node: 'keep', probe: 'health' }) === 1 &&
        sampleValue(t, 'ledger_probe_success', { node: 'keep', probe: 'blockNumber' }) === 1 &&
        sampleValue(t, 'ledger_evidence_records_total', { node: 'keep' }) ===
          sumOf(t, 'ledger_probe_failures_total', { node: 'keep', reason: 'http_5xx' })
          ? t
          : undefined,
      15_000,
      ex.output,
    );
    const failuresBefore = sumOf(before, 'ledger_probe_failures_total', { node: 'keep' });
    const evidenceBefore = sampleValue(before, 'ledger_evidence_records_total', { node: 'keep' })!;
    expect(failuresBefore).toBeGreaterThanOrEqual(2);
    expect(evidenceBefore).toBeGreaterThanOrEqual(2);
    expect(reloads(before, 'success')).toBe(0);
    expect(reloads(before, 'failure')).toBe(0);

    // (a) Remove `gone`, add `added`: the file watcher applies it.
    writeAtomically(file, configYaml({ nodes: [entry(keep), entry(fleet.node('added'))] }));
    const after = await waitForMetrics(
      ex.url,
      'added up and gone dropped',
      (t) => (up(t, 'added') === 1 && !t.includes('node="gone"') ? t : undefined),
      15_000,
      ex.output,
    );
    expect(reloads(after, 'success')).toBe(1);
    expect(sumOf(after, 'ledger_probe_failures_total', { node: 'keep' })).toBe(failuresBefore);
    expect(sampleValue(after, 'ledger_evidence_records_total', { node: 'keep' })).toBe(evidenceBefore);
    expect(up(after, 'keep')).toBe(1);
    const applied = await ex.waitForLog('reload log', (l) => l.msg === 'configuration reloaded');
    expect(applied.added).toEqual(['added']);
    expect(applied.removed).toEqual(['gone']);
    // Logged just after 'configuration reloaded', and it can come through stdout a moment later.
    await ex.waitForLog('the reload applied on the file change', isReloadLog('file changed', 'configuration applied'));

    // (b) An invalid file: the running config stays, the failure is counted and logged with its position.
    const invalid = configYaml({ nodes: [entry(keep), entry(fleet.node('late'))], extra: 'scrape_interval: 15s' });
    writeAtomically(file, invalid);
    const rejected = await ex.waitForLog(
      'reload rejected',
      isReloadLog('file changed', 'configuration reload rejected; the running configuration stays'),
    );
    const badLine = invalid.split('\n').indexOf('scrape_interval: 15s') + 1;
    expect(rejected.problems).toEqual([
      expect.stringMatching(new RegExp(`^${escapeRe(file)}:${badLine}:1: .*scrape_interval`)),
    ]);
    const stayed = await waitForMetrics(
      ex.url,
      'failure counted',
      (t) => (reloads(t, 'failure') === 1 ? t : undefined),
      10_000,
      ex.output,
    );
    expect(reloads(stayed, 'success')).toBe(1);
    expect(up(stayed, 'late')).toBeUndefined();
    // Still polling the running config: `added` keeps answering after the rejected reload.
    const lastOk = sampleValue(stayed, 'ledger_probe_last_success_timestamp_seconds', {
      node: 'added',
      probe: 'health',
    })!;
    await waitForMetrics(
      ex.url,
      'added polled again',
      (t) =>
        (sampleValue(t, 'ledger_probe_last_success_timestamp_seconds', { node: 'added', probe: 'health' }) ?? 0) >
        lastOk
          ? true
          : undefined,
      10_000,
      ex.output,
    );
  }, 60_000);

  it('applies a Kubernetes ConfigMap update (an atomic swap of the ..data symlink)', async () => {
    // The kubelet's layout: exporter.yaml -> ..data/exporter.yaml, ..data -> ..<version>; an update
    // writes a new version directory and renames a fresh ..data symlink over the old one.
    const d = testDir('configmap');
    const evidenceDir = join(root, 'configmap-evidence');
    const version = (n: number, nodes: NodeEntry[], extra?: string) => {
      mkdirSync(join(d, `..v${n}`));
      writeFileSync(join(d, `..v${n}`, 'exporter.yaml'), configYaml({ nodes, evidenceDir, extra }));
      symlinkSync(`..v${n}`, join(d, '..data_tmp'));
      renameSync(join(d, '..data_tmp'), join(d, '..data'));
    };
    version(1, [entry(fleet.node('keep'))]);
    symlinkSync('..data/exporter.yaml', join(d, 'exporter.yaml'));
    const ex = await launch(join(d, 'exporter.yaml'));
    await waitForMetrics(ex.url, 'keep up', (t) => (up(t, 'keep') === 1 ? true : undefined), 15_000, ex.output);

    version(2, [entry(fleet.node('keep')), entry(fleet.node('added'))]);
    const t = await waitForMetrics(
      ex.url,
      'added up after the swap',
      (x) => (up(x, 'added') === 1 ? x : undefined),
      15_000,
      ex.output,
    );
    expect(reloads(t, 'success')).toBe(1);
    // A swap that changes only a comment is no change: nothing applied, nothing counted.
    version(3, [entry(fleet.node('keep')), entry(fleet.node('added'))], '# reviewed');
    await ex.waitForLog('second swap seen', (l) => l.msg === 'configuration unchanged' && l.why === 'file changed');
    expect(reloads(await scrapeText(ex.url), 'success')).toBe(1);
  }, 60_000);

  it('SIGHUP applies a change the file watcher cannot see, and counts a rejected one', async () => {
    // The config path is a symlink into another directory (as with mounted configs): editing the
    // target in place raises no event in the watched directory, so only SIGHUP can apply it.
    const d = testDir('sighup');
    const real = join(testDir('sighup-real'), 'exporter.yaml');
    const link = join(d, 'exporter.yaml');
    const evidenceDir = join(d, 'evidence');
    writeFileSync(real, configYaml({ nodes: [entry(fleet.node('keep'))], evidenceDir }));
    symlinkSync(real, link);
    const ex = await launch(link);
    await waitForMetrics(ex.url, 'keep up', (t) => (up(t, 'keep') === 1 ? true : undefined), 15_000, ex.output);

    writeFileSync(real, configYaml({ nodes: [entry(fleet.node('keep')), entry(fleet.node('late'))], evidenceDir }));
    const beforeHup = await scrapeText(ex.url);
    expect(up(beforeHup, 'late')).toBeUndefined();
    expect(reloads(beforeHup, 'success')).toBe(0);

    ex.child.kill('SIGHUP');
    const t = await waitForMetrics(
      ex.url,
      'late up after SIGHUP',
      (x) => (up(x, 'late') === 1 ? x : undefined),
      15_000,
      ex.output,
    );
    expect(reloads(t, 'success')).toBe(1);
    await ex.waitForLog('applied on SIGHUP', isReloadLog('SIGHUP', 'configuration applied'));

    writeFileSync(real, 'nodes: []\n');
    ex.child.kill('SIGHUP');
    const rejected = await ex.waitForLog(
      'rejected on SIGHUP',
      isReloadLog('SIGHUP', 'configuration reload rejected; the running configuration stays'),
    );
    expect((rejected.problems as string[]).every((p) => p.startsWith(`${link}:`) && /:\d+:\d+: /.test(p))).toBe(true);
    const after = await waitForMetrics(
      ex.url,
      'failure counted',
      (x) => (reloads(x, 'failure') === 1 ? x : undefined),
      10_000,
      ex.output,
    );
    expect(up(after, 'late')).toBe(1);
    expect(up(after, 'keep')).toBe(1);
    expect(ex.child.exitCode).toBeNull();
  }, 60_000);
});

describe('SIGHUP during start-up', () => {
  it.skipIf(process.platform !== 'linux')(
    'is held, not fatal: the exporter starts, logs the deferral and reloads once ready',
    async () => {
      // systemd's ExecReload may signal at any moment. Before node runs the CLI's first line no
      // program can catch a signal, so the test sends SIGHUP as soon as the process catches it,
      // while the rest of the CLI still loads, and changes the file first: the reload must apply it.
      const d = testDir('sighup-startup');
      const file = join(d, 'exporter.yaml');
      writeFileSync(file, configYaml({ nodes: [entry(fleet.node('keep'))] }));
      let hupSent = false;
      const ex = await launch(file, async (child) => {
        await waitFor('the CLI to catch SIGHUP', () => catchesSighup(child.pid!), { timeoutMs: 15_000, intervalMs: 2 });
        writeAtomically(file, configYaml({ nodes: [entry(fleet.node('keep')), entry(fleet.node('late'))] }));
        hupSent = child.kill('SIGHUP');
      });
      expect(hupSent).toBe(true);

      await ex.waitForLog('the deferred reload applied', isReloadLog('SIGHUP', 'configuration applied'));
      const logs = ex.logs();
      const deferred = logs.findIndex(
        (l) => l.msg === 'SIGHUP during start-up: the reload runs once the exporter is ready',
      );
      expect(deferred, ex.output()).toBeGreaterThanOrEqual(0);
      expect(deferred).toBeLessThan(logs.findIndex((l) => l.msg === 'exporter listening'));
      const t = await waitForMetrics(
        ex.url,
        'keep and late up',
        (x) => (up(x, 'keep') === 1 && up(x, 'late') === 1 ? x : undefined),
        15_000,
        ex.output,
      );
      expect(reloads(t, 'success')).toBe(1);
      expect(reloads(t, 'failure')).toBe(0);
      expect(ex.logs().filter((l) => l.msg === 'configuration applied')).toHaveLength(1);
      expect({ code: ex.child.exitCode, signal: ex.child.signalCode }).toEqual({ code: null, signal: null });
    },
    60_000,
  );
});

describe.each(['SIGTERM', 'SIGINT'] as const)('%s', (signal) => {
  it('exits 0 within a bound while a probe hangs, with every acknowledged record on disk', async () => {
    const d = testDir(`stop-${signal}`);
    const file = join(d, 'exporter.yaml');
    const stuck = fleet.node('stuck');
    const failing = fleet.node('burst-0');
    writeFileSync(file, configYaml({ nodes: [entry(stuck, { interval: '1200ms', timeout: '1s' }), entry(failing)] }));
    const ex = await launch(file);

    const acked = await waitForMetrics(
      ex.url,
      'evidence acknowledged',
      (t) => {
        const n = sampleValue(t, 'ledger_evidence_records_total', { node: 'burst-0' }) ?? 0;
        return n >= 3 ? n : undefined;
      },
      15_000,
      ex.output,
    );
    // Signal right after a request reached the hanging node: that probe is in flight for up to 1s.
    // (Backing off after timeouts, the node may wait up to 8 intervals plus jitter for its next request.)
    const seen = stuck.requestCount();
    await waitForMetrics(
      ex.url,
      'a fresh request held by the hanging node',
      () => (stuck.requestCount() > seen ? true : undefined),
      25_000,
      ex.output,
    );
    ex.child.kill(signal);

    const exit = await ex.exited(15_000);
    expect(exit, ex.output()).toEqual({ code: 0, signal: null });
    expect(ex.logs().some((l) => l.msg === 'shutting down' && l.signal === signal)).toBe(true);
    // The hung probe ended by its timeout inside the grace period: nothing was abandoned.
    expect(ex.logs().some((l) => typeof l.msg === 'string' && l.msg.includes('abandoned'))).toBe(false);

    const raw = readRawEvidence(join(d, 'evidence'));
    expect(raw.tornFiles).toEqual([]);
    const read = await readEvidence(join(d, 'evidence'), { node: 'burst-0', limit: Number.POSITIVE_INFINITY });
    expect(read.skippedLines).toBe(0);
    expect(read.records.length).toBeGreaterThanOrEqual(acked);
    expect(read.records.every((r) => r.status === 502 && r.node === 'burst-0')).toBe(true);
  }, 60_000);
});

describe('kill -9 during a 5xx burst', () => {
  it('leaves every acknowledged record readable, and a restarted exporter keeps appending', async () => {
    const d = testDir('crash');
    const file = join(d, 'exporter.yaml');
    const evidence = join(d, 'evidence');
    const burst = fleet.nodes.filter((n) => n.name.startsWith('burst-'));
    writeFileSync(
      file,
      configYaml({
        nodes: burst.map((n) => entry(n)),
        interval: '200ms',
        timeout: '150ms',
        probes: ['health', 'metrics', 'blockNumber', 'miningStats', 'validators'],
      }),
    );

    const first = await launch(file);
    const acked = await waitForMetrics(
      first.url,
      'a burst of evidence',
      (t) => {
        const n = sumOf(t, 'ledger_evidence_records_total');
        return n >= 40 ? n : undefined;
      },
      20_000,
      first.output,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited(10_000)).toEqual({ code: null, signal: 'SIGKILL' });

    // Every complete line is a record; at most the last line of the last file was torn.
    const afterCrash = readRawEvidence(evidence);
    expect(afterCrash.tornFiles.filter((f) => f !== afterCrash.files.at(-1))).toEqual([]);
    expect(afterCrash.records.length).toBeGreaterThanOrEqual(acked);
    const read1 = await readEvidence(evidence, { limit: Number.POSITIVE_INFINITY });
    expect(read1.records.length).toBe(afterCrash.records.length);
    expect(read1.skippedLines).toBe(afterCrash.tornFiles.length);
    const names = new Set(burst.map((n) => n.name));
    expect(read1.records.every((r) => names.has(r.node) && r.status === 502)).toBe(true);

    const restartedAt = Date.now();
    const second = await launch(file);
    const acked2 = await waitForMetrics(
      second.url,
      'new evidence after restart',
      (t) => {
        const n = sumOf(t, 'ledger_evidence_records_total');
        return n >= 10 ? n : undefined;
      },
      20_000,
      second.output,
    );
    second.child.kill('SIGTERM');
    expect((await second.exited(15_000)).code).toBe(0);

    const afterRestart = readRawEvidence(evidence);
    // The torn tail (if any) stays the only one: the restarted exporter never appends to a torn line.
    expect(afterRestart.tornFiles).toEqual(afterCrash.tornFiles);
    expect(afterRestart.records.length).toBeGreaterThanOrEqual(afterCrash.records.length + acked2);
    const read2 = await readEvidence(evidence, { limit: Number.POSITIVE_INFINITY });
    expect(read2.records.length).toBe(afterRestart.records.length);
    const newer = read2.records.filter((r) => Date.parse(r.time) >= restartedAt);
    expect(newer.length).toBeGreaterThanOrEqual(acked2);
  }, 60_000);
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('reload of settings that only apply at start-up (in process)', () => {
  const logged: LogLine[] = [];
  const logger = () =>
    createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk, _enc, cb) {
          for (const l of String(chunk).split('\n')) if (l) logged.push(JSON.parse(l) as LogLine);
          cb();
        },
      }),
    });
  const cfg = (dir: string, over: Partial<ExporterConfig> = {}): ExporterConfig => ({
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    nodes: [
      {
        name: 'keep',
        url: fleet.node('keep').url,
        network: 'main',
        labels: {},
        intervalMs: 1000,
        timeoutMs: 500,
        rpcNamespace: 'auto',
        probes: ['health'],
        headers: {},
      },
    ],
    networks: {},
    evidence: { dir, maxBytes: 1 << 20, maxAgeDays: 1 },
    ...over,
  });

  it('names the settings that need a restart, and only those that changed', async () => {
    const d = testDir('restart-only');
    const initial = cfg(join(d, 'evidence'));
    // --listen overrides the config's listen: a reload of the same file changes nothing.
    const daemon = await startDaemon(
      { ...initial, listen: { host: '0.0.0.0', port: 9715 } },
      { logger: logger(), listen: { host: '127.0.0.1', port: 0 }, defaultMetrics: false },
    );
    try {
      daemon.applyConfig({ ...initial, listen: { host: '0.0.0.0', port: 9715 } });
      expect(logged.filter((l) => l.level === 40)).toEqual([]);
      daemon.applyConfig(cfg(join(d, 'elsewhere'), { polling: { ...initial.polling, concurrency: 8 } }));
      const warn = logged.find((l) => l.level === 40);
      expect(warn?.settings).toEqual(['evidence', 'polling']);
      expect(warn?.msg).toMatch(/next restart/);
    } finally {
      await daemon.close();
    }
  }, 60_000);

  it('keeps the start-up polling limits for every node, changed nodes included, until a restart', async () => {
    const d = testDir('polling-reload');
    // A body cap below the size of a /health answer: every health probe fails as invalid_response.
    const initial = cfg(join(d, 'evidence'), {
      polling: { concurrency: 4, maxResponseBytes: 16, maxUpstreamSeries: 100 },
    });
    const daemon = await startDaemon(initial, { logger: logger(), defaultMetrics: false });
    try {
      const runs = () => daemon.state.get('keep')?.probes.get('health')?.runs ?? 0;
      await waitFor('first health run', () => (runs() > 0 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      expect(daemon.state.get('keep')?.probes.get('health')?.lastRun?.ok).toBe(false);
      // The reload lifts the cap and changes the node (so it gets a new prober): the cap stays.
      const changedNode = { ...initial.nodes[0]!, labels: { rack: 'r2' } };
      daemon.applyConfig({
        ...initial,
        nodes: [changedNode],
        polling: { ...initial.polling, maxResponseBytes: 1 << 20 },
      });
      expect(logged.some((l) => l.level === 40 && (l.settings as string[] | undefined)?.includes('polling'))).toBe(
        true,
      );
      const before = runs();
      await waitFor('a health run after the reload', () => (runs() > before ? true : undefined), {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      expect(daemon.state.get('keep')?.probes.get('health')?.failures.invalid_response).toBeGreaterThan(0);
      expect(daemon.state.get('keep')?.probes.get('health')?.lastRun?.ok).toBe(false);
    } finally {
      await daemon.close();
    }
  }, 60_000);
});
