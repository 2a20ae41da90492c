// The heap growth the daemon sets for itself (src/heapPolicy.ts): the flag it sets, the operator's
// own choice on node's command line winning, and this Node's V8 knowing the flag (setFlagsFromString
// ignores an unknown flag silently, so a V8 that dropped it would leave the policy without effect).
// The young-generation cap is checked in real node processes (the built dist/heapPolicy.js) that
// keep promoting objects, which makes V8 grow its young generation to the most it allows: first in
// one long task right after the policy applies (as a fleet's first polls), then over many turns.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  HEAP_GROWING_PERCENT,
  heapFlags,
  heapGrowingPercentFor,
  SMALL_FLEET_HEAP_GROWING_PERCENT,
  SMALL_FLEET_NODES,
  YOUNG_GENERATION_CAP_BYTES,
  YOUNG_GENERATION_MIN_CAP_BYTES,
  youngGenerationCapFor,
  youngGenerationGiven,
} from '../src/heapPolicy.js';

const BUILT_POLICY = fileURLToPath(new URL('../dist/heapPolicy.js', import.meta.url));

/** Largest young generation (bytes) a node process reaches while it keeps objects alive over a few turns. */
const CHURN = `
import { getHeapSpaceStatistics } from 'node:v8';
const policy = process.argv[1] && (await import(process.argv[1]));
const nodes = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
if (policy && nodes === -1) policy.holdYoungGeneration();
else if (policy) policy.applyHeapPolicy(process.execArgv, nodes);
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
let max = young(); const keep = [];
for (let i = 0; i < 400000; i++) { keep.push({ i, s: 'x' + i }); if (i % 1000 === 0) max = Math.max(max, young()); }
for (let round = 0; round < 150; round++) {
  const batch = []; for (let i = 0; i < 20000; i++) batch.push({ i, s: 'x' + i });
  keep.push(batch); if (keep.length > 8) keep.shift();
  await new Promise((r) => setImmediate(r));
  max = Math.max(max, young());
}
console.log(max);`;

/** `nodes`: the fleet size the policy is applied for (-1: only held, as the CLI does before the config is read). */
function largestYoungGeneration(nodeFlags: string[], policy?: string, nodes?: number): number {
  const r = spawnSync(
    process.execPath,
    [
      ...nodeFlags,
      '--input-type=module',
      '-e',
      CHURN,
      ...(policy ? [policy] : []),
      ...(nodes === undefined ? [] : [String(nodes)]),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('heapFlags', () => {
  it('sets the heap growing percent when the operator gave none', () => {
    expect(heapFlags([])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(heapFlags(['--max-semi-space-size=4', '--enable-source-maps'])).toEqual([
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    ]);
  });

  it('grows the old generation 1.25x for a fleet of up to 1,024 nodes, 1.6x for larger or unknown ones', () => {
    expect(SMALL_FLEET_HEAP_GROWING_PERCENT).toBe(25);
    expect(HEAP_GROWING_PERCENT).toBe(60);
    expect(SMALL_FLEET_NODES).toBe(1024);
    expect(heapGrowingPercentFor(1)).toBe(25);
    expect(heapGrowingPercentFor(1000)).toBe(25);
    expect(heapGrowingPercentFor(1024)).toBe(25);
    expect(heapGrowingPercentFor(1025)).toBe(60);
    expect(heapGrowingPercentFor(10_000)).toBe(60);
    expect(heapGrowingPercentFor(undefined)).toBe(60);
    expect(heapFlags([], 1000)).toEqual(['--heap-growing-percent=25']);
    expect(heapFlags([], 10_000)).toEqual(['--heap-growing-percent=60']);
    expect(heapFlags(['--heap-growing-percent=100'], 1000)).toEqual([]);
  });

  it("keeps the operator's own value, however it is spelled", () => {
    expect(heapFlags(['--heap-growing-percent=100'])).toEqual([]);
    expect(heapFlags(['--heap_growing_percent=30'])).toEqual([]);
    expect(heapFlags(['--heap-growing-percent', '30'])).toEqual([]);
  });

  it("is a flag this Node's V8 accepts (node refuses an unknown one)", () => {
    const known = spawnSync(process.execPath, [heapFlags([])[0]!, '-e', '0'], { encoding: 'utf8' });
    expect(known.status, known.stderr).toBe(0);
    const unknown = spawnSync(process.execPath, ['--heap-growing-percentage=60', '-e', '0'], { encoding: 'utf8' });
    expect(unknown.status).not.toBe(0);
  });
});

describe('young generation cap', () => {
  it("leaves the young generation to the operator's own node flags, however they are spelled", () => {
    expect(youngGenerationGiven(['--max-semi-space-size=32'])).toBe(true);
    expect(youngGenerationGiven(['--max_semi_space_size', '32'])).toBe(true);
    expect(youngGenerationGiven(['--semi-space-growth-factor=4'])).toBe(true);
    expect(youngGenerationGiven(['--max-heap-size=2048'])).toBe(true);
    expect(
      youngGenerationGiven(['--heap-growing-percent=30', '--max-old-space-size=512', '--enable-source-maps']),
    ).toBe(false);
  });

  it('keeps a real process at the cap where V8 alone grows past it', () => {
    expect(largestYoungGeneration([])).toBeGreaterThan(YOUNG_GENERATION_CAP_BYTES);
    expect(largestYoungGeneration([], BUILT_POLICY)).toBe(YOUNG_GENERATION_CAP_BYTES);
  });

  it("fits the cap to the fleet: V8's initial 2 MB for a few nodes, doubling with the fleet up to the cap", () => {
    const MB = 1024 * 1024;
    expect(YOUNG_GENERATION_MIN_CAP_BYTES).toBe(2 * MB);
    expect(YOUNG_GENERATION_CAP_BYTES).toBe(16 * MB);
    expect(youngGenerationCapFor(1)).toBe(2 * MB);
    expect(youngGenerationCapFor(256)).toBe(2 * MB);
    expect(youngGenerationCapFor(257)).toBe(4 * MB);
    expect(youngGenerationCapFor(1000)).toBe(8 * MB);
    expect(youngGenerationCapFor(1024)).toBe(8 * MB);
    expect(youngGenerationCapFor(1025)).toBe(16 * MB);
    expect(youngGenerationCapFor(100_000)).toBe(16 * MB);
  });

  it('keeps a held process and a 1-node one at the initial young generation, larger fleets at their caps', () => {
    expect(largestYoungGeneration([], BUILT_POLICY, -1)).toBe(YOUNG_GENERATION_MIN_CAP_BYTES);
    expect(largestYoungGeneration([], BUILT_POLICY, 1)).toBe(YOUNG_GENERATION_MIN_CAP_BYTES);
    expect(largestYoungGeneration([], BUILT_POLICY, 1000)).toBe(youngGenerationCapFor(1000));
    expect(largestYoungGeneration([], BUILT_POLICY, 10_000)).toBe(youngGenerationCapFor(10_000));
  });

  it("does not cap a process whose operator sized the semi-spaces on node's command line", () => {
    expect(largestYoungGeneration(['--max-semi-space-size=32'], BUILT_POLICY)).toBeGreaterThan(
      2 * YOUNG_GENERATION_CAP_BYTES,
    );
  });
});
