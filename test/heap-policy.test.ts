// The heap growth the daemon sets for itself (src/heapPolicy.ts): the flag it sets, the operator's
// own choice on node's command line winning, and this Node's V8 knowing the flag (setFlagsFromString
// ignores an unknown flag silently, so a V8 that dropped it would leave the policy without effect).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapFlags } from '../src/heapPolicy.js';

describe('heapFlags', () => {
  it('sets the heap growing percent when the operator gave none', () => {
    expect(heapFlags([])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(heapFlags(['--max-semi-space-size=4', '--enable-source-maps'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
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
