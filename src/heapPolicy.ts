// How far V8 lets the heap grow between full collections, set by the daemon for itself so every
// way of starting it (the CLI bin, `npm start`, the container image) gets it. On a machine with
// gigabytes of memory V8 lets the old generation grow to up to 4x the live heap before a full
// collection. The exporter replaces each node's answers at every poll, so they outlive a few young
// collections and are promoted: most of that growth is dead answers waiting for a full GC.
// 1.6x (what V8 itself picks under a 1 GB heap limit, without the limit) measured at 1,000 nodes /
// 15 s: steady RSS 190-320 MB -> 168 MB with the same GC pause per poll; at 10,000 nodes it was
// neutral or better. A fleet of up to SMALL_FLEET_NODES grows it 1.25x (below).
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { applyCompilerPolicy } from './compilerPolicy.js';

/** The old generation's growth past the live heap (percent) for fleets larger than SMALL_FLEET_NODES. */
export const HEAP_GROWING_PERCENT = 60;

/**
 * Up to this many nodes the old generation grows 1.25x: at 1,000 nodes / 2 s (live heap ~32 MB)
 * steady RSS was 123-124 MB against 126 MB with 1.35x and 139-142 MB with 1.6x, CPU per node-poll
 * within the machine's spread (docs/performance.md). At 10,000 nodes (200 MB live) 1.25x took 48 MB
 * off steady RSS (413 against 460 MB) but cost 20-35% more CPU per node-poll: a full collection of
 * the large heap every few seconds.
 */
export const SMALL_FLEET_NODES = 1024;
export const SMALL_FLEET_HEAP_GROWING_PERCENT = 25;

/** The old generation's growth (percent) for a fleet of `nodes` (unknown: a large fleet's). */
export function heapGrowingPercentFor(nodes?: number): number {
  return nodes !== undefined && nodes <= SMALL_FLEET_NODES ? SMALL_FLEET_HEAP_GROWING_PERCENT : HEAP_GROWING_PERCENT;
}

const MB = 1024 * 1024;

/**
 * The young generation (both semi-spaces) grows no further than this. V8 grows it to 32 MB (16 MB
 * semi-spaces), all of it resident once used. 16 MB, measured side by side at 1,000 nodes / 15 s:
 * steady RSS 182 -> 165 MB, CPU per node-poll the same (1.04 ms both), GC pause per poll
 * 0.25 -> 0.40 ms (twice the scavenges, each as short). Up to 1,024 nodes it is 8 MB
 * (youngGenerationCapFor): at 1,000 nodes / 2 s 6-8 MB less steady RSS, CPU per node-poll within
 * the machine's spread (measured earlier at 15 s: ~8% more).
 */
export const YOUNG_GENERATION_CAP_BYTES = 16 * MB;

/**
 * The V8 flags the daemon sets for itself (for a fleet of `nodes`): none that the operator gave on
 * node's command line.
 */
export function heapFlags(execArgv: readonly string[], nodes?: number): string[] {
  const given = execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
  return given ? [] : [`--heap-growing-percent=${heapGrowingPercentFor(nodes)}`];
}

/** Whether the operator sized or paced the young generation on node's command line (then it is theirs). */
export function youngGenerationGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((a) =>
    /^--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|max[-_]heap[-_]size)(=|$)/.test(a),
  );
}

/**
 * The young generation's capacity: two semi-spaces of the size V8 grew them to. V8 reports a
 * semi-space's usable bytes (its pages' headers excluded), and its committed size drops while the
 * idle semi-space is released, so the capacity is rounded up from the usable bytes.
 */
function youngGenerationCapacity(): number | undefined {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return young && 2 * Math.ceil((young.space_used_size + young.space_available_size) / MB) * MB;
}

/**
 * The smallest young generation the cap allows: V8's initial one (two 1 MB semi-spaces on 64-bit).
 * A daemon of a few nodes never needs more: its young generation is a few hundred KB per poll.
 */
export const YOUNG_GENERATION_MIN_CAP_BYTES = 2 * MB;
/** Young-generation room per polled node before the cap doubles (each poll's answers are young). */
const YOUNG_BYTES_PER_NODE = 8 * 1024;

/**
 * The young generation's cap for a fleet of `nodes`: the smallest power of two from 2 MB holding
 * 8 KB per node, at most YOUNG_GENERATION_CAP_BYTES (8 MB up to 1,024 nodes, 16 MB above). A
 * 1-node daemon that let V8 grow it while its modules load held a 16 MB young generation for good
 * (RSS 86-88 MB instead of 72 MB, one run in two).
 */
export function youngGenerationCapFor(nodes: number): number {
  let cap = YOUNG_GENERATION_MIN_CAP_BYTES;
  while (cap < nodes * YOUNG_BYTES_PER_NODE && cap < YOUNG_GENERATION_CAP_BYTES) cap *= 2;
  return Math.min(cap, YOUNG_GENERATION_CAP_BYTES);
}

/**
 * Keeps the young generation at V8's initial size until applyHeapPolicy() fits its cap: call it
 * first thing, before the modules load (one long task, during which no GC is reported to the cap's
 * observer and V8 would grow the young generation to 16 MB). Nothing when the operator sized it.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): void {
  if (!youngGenerationGiven(execArgv)) setFlagsFromString('--semi-space-growth-factor=1');
}

let youngCap: number | undefined;
let observing = false;

/** Elements of each piece growYoungGeneration() allocates (32 KB: a regular object of the young generation). */
const GROW_PIECE_ELEMENTS = 4096;

/**
 * Grows the young generation to `cap` in one synchronous loop: V8 doubles it (growth factor 2) at a
 * scavenge once more bytes survived than it holds, so the loop keeps pieces alive, reads the capacity
 * after each piece and sets the factor back to 1 the moment the cap is reached. No other code runs
 * meanwhile, so it cannot grow twice past the cap (letting V8 grow it at its own pace and checking
 * after each reported GC did: one long task right after the policy applied grew a 16 MB cap to 32 MB
 * before the first GC was reported). About 0.4x the cap is allocated (16 MB: ~7 MB, 20 ms), left to the next full GC.
 * Returns the capacity reached: less than the cap when V8's maximum is lower (no growth after
 * allocating as much as the young generation holds).
 */
function growYoungGeneration(cap: number): number {
  let size = youngGenerationCapacity() ?? cap;
  if (size >= cap) return size;
  const kept: number[][] = [];
  let sinceGrowth = 0;
  setFlagsFromString('--semi-space-growth-factor=2');
  try {
    while (size < cap && sinceGrowth <= size) {
      kept.push(new Array<number>(GROW_PIECE_ELEMENTS).fill(kept.length));
      sinceGrowth += GROW_PIECE_ELEMENTS * 8;
      const now = youngGenerationCapacity() ?? cap;
      if (now !== size) sinceGrowth = 0;
      size = now;
    }
  } finally {
    setFlagsFromString('--semi-space-growth-factor=1');
  }
  return size;
}

/**
 * Caps the young generation at run time. V8 reads --max-semi-space-size only when the heap is
 * created (a node flag, which `node dist/cli.js` and the image would not get), but reads
 * --semi-space-growth-factor at each growth: the factor stays 1 (V8 never grows it by itself) and
 * growYoungGeneration() takes it to the cap at once. V8 may still shrink it when the daemon
 * allocates little; after each reported GC a young generation under the cap is grown back. A later
 * call changes the cap (a reload that changed the fleet's size; a smaller cap takes effect when V8
 * shrinks it).
 */
export function capYoungGeneration(cap = YOUNG_GENERATION_CAP_BYTES): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  youngCap = cap;
  const check = () => {
    if (youngCap === undefined) return;
    const reached = growYoungGeneration(youngCap);
    if (reached < youngCap) youngCap = reached; // V8's own maximum is lower: not tried again at every GC
  };
  if (!observing) new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
  observing = true;
  check();
}

/**
 * Applies heapFlags(), the young-generation cap and the compilers (compilerPolicy.ts) for a fleet
 * of `nodes`, or a large fleet's, to this process; returns the heap flags set. Call it before the
 * fleet's first poll, and again when a reload changes the fleet's size.
 */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv, nodes?: number): string[] {
  applyCompilerPolicy(execArgv, nodes);
  const flags = heapFlags(execArgv, nodes);
  for (const f of flags) setFlagsFromString(f);
  if (!youngGenerationGiven(execArgv) && YOUNG_GENERATION_CAP_BYTES > 0)
    capYoungGeneration(nodes === undefined ? YOUNG_GENERATION_CAP_BYTES : youngGenerationCapFor(nodes));
  return flags;
}
