// The young generation fitted to the fleet (src/heapPolicy.ts, as the CLI applies it): checked in
// real node processes (the built dist/heapPolicy.js) that keep promoting objects, which makes V8
// grow its young generation to the most it allows.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SMALL_YOUNG_GENERATION_BYTES, YOUNG_GENERATION_CAP_BYTES, youngGenerationFor } from '../src/heapPolicy.js';

const BUILT_POLICY = fileURLToPath(new URL('../dist/heapPolicy.js', import.meta.url));

/** Largest young generation (bytes) of a process that applies the policy as the CLI does, for a fleet of `nodes`. */
const CHURN = `
import { getHeapSpaceStatistics } from 'node:v8';
const policy = await import(process.argv[1]);
policy.applyHeapPolicy(process.execArgv, true);
policy.fitYoungGeneration(Number(process.argv[2]));
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
let max = 0; const keep = [];
for (let round = 0; round < 150; round++) {
  const batch = []; for (let i = 0; i < 20000; i++) batch.push({ i, s: 'x' + i });
  keep.push(batch); if (keep.length > 8) keep.shift();
  await new Promise((r) => setImmediate(r));
  max = Math.max(max, young());
}
console.log(max);`;

function largestYoungGeneration(nodes: number): number {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHURN, BUILT_POLICY, String(nodes)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('young generation fitted to the fleet', () => {
  it('grows with the fleet from the small size to the cap', () => {
    expect(youngGenerationFor(1)).toBe(SMALL_YOUNG_GENERATION_BYTES);
    expect(youngGenerationFor(100)).toBe(SMALL_YOUNG_GENERATION_BYTES);
    expect(youngGenerationFor(200)).toBe(8 * 1024 * 1024);
    expect(youngGenerationFor(512)).toBe(YOUNG_GENERATION_CAP_BYTES);
    expect(youngGenerationFor(10_000)).toBe(YOUNG_GENERATION_CAP_BYTES);
  });

  it('keeps a 1-node process well under the cap and lets a 1,000-node one reach it', () => {
    // The cap is checked as GCs are reported, between tasks: a long task may grow it one step past.
    expect(largestYoungGeneration(1)).toBeLessThanOrEqual(2 * SMALL_YOUNG_GENERATION_BYTES);
    expect(largestYoungGeneration(1_000)).toBe(YOUNG_GENERATION_CAP_BYTES);
  });
});
