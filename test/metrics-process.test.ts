// process_open_fds follows the descriptors actually open (it is read at each scrape, never kept).
import { closeSync, openSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openFdCount, processMetricsRegistry } from '../src/metrics/processMetrics.js';

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
  const fakeFs = (size: number, entries: number) => ({ statSync: () => ({ size }), readdirSync: () => Array.from({ length: entries }, (_, i) => String(i)) });
  it('takes the count from the directory size where the kernel gives it (Linux 6.2+)', () => {
    expect(openFdCount(fakeFs(10_001, 0))).toBe(10_001);
  });
  it('lists the directory where the size is 0 (older kernels), less the listing\'s own descriptor', () => {
    expect(openFdCount(fakeFs(0, 12))).toBe(11);
  });
});
