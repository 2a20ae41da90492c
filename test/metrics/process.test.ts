// process_open_fds follows the descriptors actually open (it is read at each scrape, never kept);
// the event-loop delay monitor samples at a rate that costs an idle exporter little.
import { execFile } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EVENT_LOOP_SAMPLE_MS, openFdCount, processMetricsRegistry } from '../../src/metrics/processMetrics.js';

const execFileP = promisify(execFile);

const linux = process.platform === 'linux';
if (!linux) console.log('metrics-process: skipped: process_open_fds exists on Linux only');

async function openFds(format: 'text' | 'openmetrics'): Promise<number> {
  const text = await processMetricsRegistry(format).metrics();
  const line = text.split('\n').find((l) => l.startsWith('process_open_fds '));
  expect(line).toBeDefined();
  return Number(line!.slice('process_open_fds '.length));
}

describe.runIf(linux)('process_open_fds', () => {
  it('counts the descriptors open now, as listing /proc/self/fd does', async () => {
    const before = await openFds('text');
    // Listing opens one descriptor of its own.
    expect(before).toBe(readdirSync('/proc/self/fd').length - 1);
    const fds = Array.from({ length: 40 }, () => openSync('/dev/null', 'r'));
    try {
      expect(await openFds('text')).toBe(before + 40);
      expect(await openFds('openmetrics')).toBe(before + 40);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    expect(await openFds('text')).toBe(before);
  });
});

describe('open descriptors without /proc listing', () => {
  const fakeFs = (size: number, entries: number) => ({
    statSync: () => ({ size }),
    readdirSync: () => Array.from({ length: entries }, (_, i) => String(i)),
  });
  it('takes the count from the directory size where the kernel gives it (Linux 6.2+)', () => {
    expect(openFdCount(fakeFs(10_001, 0))).toBe(10_001);
  });
  it("lists the directory where the size is 0 (older kernels), less the listing's own descriptor", () => {
    expect(openFdCount(fakeFs(0, 12))).toBe(11);
  });
});

describe.runIf(linux)('the event-loop delay monitor behind nodejs_eventloop_lag_*', () => {
  // A fresh process (the test runner's own timers would count too): both registries built, then
  // how often its main thread woke up in 2 s of doing nothing else, from the kernel's count.
  const registryModule = new URL('../../dist/metrics/processMetrics.js', import.meta.url).href;
  const script = `
    const { processMetricsRegistry } = await import(${JSON.stringify(registryModule)});
    await processMetricsRegistry('text').metrics();
    await processMetricsRegistry('openmetrics').metrics();
    const { readFileSync } = await import('node:fs');
    const status = () => readFileSync('/proc/self/task/' + process.pid + '/status', 'utf8');
    const wakes = () => Number(/voluntary_ctxt_switches:\\s+(\\d+)/.exec(status())[1]);
    await new Promise((r) => setTimeout(r, 300));
    const before = wakes();
    await new Promise((r) => setTimeout(r, 2000));
    const idle = wakes() - before;
    const lag = async () => Object.fromEntries(
      (await processMetricsRegistry('text').getMetricsAsJSON())
        .filter((m) => m.name.startsWith('nodejs_eventloop_lag_'))
        .map((m) => [m.name.slice('nodejs_eventloop_lag_'.length, -'_seconds'.length), m.values[0].value]),
    );
    const atRest = await lag();
    // Reading resets the monitor, whose first sample after that only starts a period.
    await new Promise((r) => setTimeout(r, 250));
    // The loop blocked for 300 ms: the sample due in it comes at least ~200 ms late.
    const until = Date.now() + 300;
    while (Date.now() < until);
    await new Promise((r) => setTimeout(r, 500));
    console.log(JSON.stringify({ wakes: idle, atRest, blocked: await lag() }));
  `;

  it('samples every EVENT_LOOP_SAMPLE_MS, so an idle exporter wakes ~10 times a second, not 100', async () => {
    expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
    const { stdout } = await execFileP(process.execPath, ['--input-type=module', '-e', script]);
    const { wakes } = JSON.parse(stdout.trim()) as { wakes: number };
    // 20 samples in 2 s (prom-client's default of 10 ms: ~200). The bound leaves room for GC and
    // the kernel's own reasons to switch the thread out.
    expect(wakes).toBeGreaterThanOrEqual(15);
    expect(wakes).toBeLessThan(60);
  });

  it('reports the delay beyond the sampling interval: about none at rest, a blocked loop as its length', async () => {
    const { stdout } = await execFileP(process.execPath, ['--input-type=module', '-e', script]);
    const { atRest, blocked } = JSON.parse(stdout.trim()) as Record<'atRest' | 'blocked', Record<string, number>>;
    // Node's monitor records whole periods (0.1 s at rest); those would read as 100 ms of lag, every
    // sample. The upper percentiles are left out: on a busy machine one sample can wait for a core.
    for (const stat of ['min', 'p50']) expect(atRest[stat], stat).toBeLessThan(0.05);
    expect(blocked.max).toBeGreaterThan(0.15);
    expect(blocked.max).toBeLessThan(0.5);
    expect(blocked.min).toBeLessThan(0.05);
  });
});
