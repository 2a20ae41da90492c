// How far V8 lets the heap grow between full collections, set by the daemon for itself so every
// way of starting it (the CLI bin, `npm start`, the container image) gets it. On a machine with
// gigabytes of memory V8 lets the old generation grow to up to 4x the live heap before a full
// collection. The exporter replaces each node's answers at every poll, so they outlive a few young
// collections and are promoted: most of that growth is dead answers waiting for a full GC.
// 1.6x (what V8 itself picks under a 1 GB heap limit, without the limit) measured at 1,000 nodes /
// 15 s: steady RSS 190-320 MB -> 168 MB with the same GC pause per poll; at 10,000 nodes it was
// neutral or better. 35 took 8 MB more off at 1,000 nodes but cost ~5% CPU per node-poll.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 60;

const MB = 1024 * 1024;

/**
 * The young generation (both semi-spaces) grows no further than this. V8 grows it to 32 MB (16 MB
 * semi-spaces), all of it resident once used. 16 MB, measured side by side at 1,000 nodes / 15 s:
 * steady RSS 182 -> 165 MB, CPU per node-poll the same (1.04 ms both), GC pause per poll
 * 0.25 -> 0.40 ms (twice the scavenges, each as short). 8 MB saved only ~3 MB more and cost ~8%
 * CPU per node-poll.
 */
export const YOUNG_GENERATION_CAP_BYTES = 16 * MB;

/** V8's own growth factor of the young generation (--semi-space-growth-factor). */
const V8_YOUNG_GROWTH_FACTOR = 2;

/** The V8 flags the daemon sets for itself: none that the operator gave on node's command line. */
export function heapFlags(execArgv: readonly string[]): string[] {
  const given = execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
  return given ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`];
}

/** Whether the operator sized or paced the young generation on node's command line (then it is theirs). */
export function youngGenerationGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((a) =>
    /^--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|max[-_]heap[-_]size)(=|$)/.test(a),
  );
}

/** The growth factor that keeps a young generation of `size` bytes at or under `cap`. */
export function youngGrowthFactor(size: number, cap: number): number {
  return size >= cap ? 1 : V8_YOUNG_GROWTH_FACTOR;
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
const YOUNG_BYTES_PER_NODE = 16 * 1024;

/**
 * The young generation's cap for a fleet of `nodes`: the smallest power of two from 2 MB holding
 * 16 KB per node, at most YOUNG_GENERATION_CAP_BYTES (reached at ~500 nodes). A 1-node daemon that
 * let V8 grow it while its modules load held a 16 MB young generation for good (RSS 86-88 MB
 * instead of 72 MB, one run in two).
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
let checkYoung: (() => void) | undefined;

/**
 * Caps the young generation at run time. V8 reads --max-semi-space-size only when the heap is
 * created (a node flag, which `node dist/cli.js` and the image would not get), but reads
 * --semi-space-growth-factor at each growth: after every GC the factor becomes 1 once the young
 * generation reached the cap, and V8's own again if V8 shrank it. Best effort: GCs are reported
 * between tasks, so a young generation V8 shrank while idle can grow past the cap in one long
 * burst (seen when 10,000 nodes start after a long idle wait, never once polling runs). A later
 * call changes the cap (a reload that changed the fleet's size).
 */
export function capYoungGeneration(cap = YOUNG_GENERATION_CAP_BYTES): void {
  youngCap = cap;
  if (checkYoung) return checkYoung();
  let factor: number | undefined;
  checkYoung = () => {
    const size = youngGenerationCapacity();
    if (size === undefined || youngCap === undefined) return;
    const next = youngGrowthFactor(size, youngCap);
    if (next === factor) return;
    factor = next;
    setFlagsFromString(`--semi-space-growth-factor=${next}`);
  };
  new PerformanceObserver(checkYoung).observe({ entryTypes: ['gc'] });
  checkYoung();
}

/**
 * Applies heapFlags() and the young-generation cap (for a fleet of `nodes`, or the largest cap) to
 * this process; returns the flags set. Call it before the fleet's first poll, and again when a
 * reload changes the fleet's size.
 */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv, nodes?: number): string[] {
  const flags = heapFlags(execArgv);
  for (const f of flags) setFlagsFromString(f);
  if (!youngGenerationGiven(execArgv) && YOUNG_GENERATION_CAP_BYTES > 0)
    capYoungGeneration(nodes === undefined ? YOUNG_GENERATION_CAP_BYTES : youngGenerationCapFor(nodes));
  return flags;
}
