// Nodes reporting the same validators share one list object (memory at fleet scale); a different
// list, even one that looks alike at its ends, is never replaced by another node's.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { NodeValues, ValidatorInfo } from '../../src/domain.js';
import { nodeProbe as probeDescriptor } from '../../src/probes/registry.js';
import { sharedValidators } from '../../src/probes/validatorLists.js';

const answer = (
  n: number,
  stakeOf = (i: number) => String(1000 + i),
  addr = (i: number) => `0x${(0xa0 + i).toString(16).padStart(40, '0')}`,
) => Array.from({ length: n }, (_, i) => ({ address: addr(i), stake: stakeOf(i), weight: i, agentScore: 50 }));
const parse = (result: unknown): ValidatorInfo[] => {
  const d = probeDescriptor('validators');
  return (d.parse(result, { budget: { maxValidators: 10_000 } } as never) as { value: ValidatorInfo[] }).value;
};

describe('shared validator lists', () => {
  it('gives nodes that report the same validators one list object, through the probe descriptor', () => {
    const d = probeDescriptor('validators');
    const nodes = [{}, {}, {}] as NodeValues[];
    for (const node of nodes) d.apply(node, { probe: 'validators', value: parse(answer(30)) }, 0);
    expect(nodes[1]!.validators).toBe(nodes[0]!.validators);
    expect(nodes[2]!.validators).toBe(nodes[0]!.validators);
    expect(nodes[0]!.validators).toHaveLength(30);
    // One node's set changes: it gets its own list with the new stake; the others keep theirs.
    d.apply(nodes[2]!, { probe: 'validators', value: parse(answer(30, (i) => String(i === 17 ? 5 : 1000 + i))) }, 0);
    expect(nodes[2]!.validators).not.toBe(nodes[0]!.validators);
    expect(nodes[2]!.validators![17]!.stake).toBe(5n);
    expect(nodes[0]!.validators![17]!.stake).toBe(1017n);
  });

  it('never shares lists that differ anywhere, even with the same length and ends', () => {
    const a = parse(answer(10));
    const b = parse(answer(10, undefined, (i) => `0x${(i === 4 ? 0xff : 0xa0 + i).toString(16).padStart(40, '0')}`));
    const c = parse(answer(10, (i) => String(1000 + i), undefined).map((v, i) => (i === 9 ? { ...v, weight: 99 } : v)));
    expect(sharedValidators(a)).toBe(a);
    expect(sharedValidators(b)).toBe(b);
    expect(sharedValidators(c)).toBe(c);
    expect(sharedValidators(parse(answer(10)))).not.toBe(a); // c (equal ends) replaced a in the table
    expect(sharedValidators([])).toEqual([]);
  });

  it('is bounded: an old set is forgotten after many others', () => {
    const first = parse(answer(3, (i) => String(7 + i)));
    expect(sharedValidators(first)).toBe(first);
    const others = Array.from({ length: 100 }, (_, k) => parse(answer(3, (i) => String(100_000 + k * 10 + i))));
    for (const o of others) expect(sharedValidators(o)).toBe(o);
    expect(sharedValidators(parse(answer(3, (i) => String(7 + i))))).not.toBe(first);
    const last = others.at(-1)!;
    expect(sharedValidators(parse(answer(3, (i) => String(100_000 + 99 * 10 + i))))).toBe(last);
  });

  it('does not keep a list alive that no node holds', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let list: ValidatorInfo[] | undefined = parse(answer(5, (i) => String(31_337 + i)));
    sharedValidators(list);
    const ref = new WeakRef(list);
    list = undefined;
    await new Promise((r) => setTimeout(r, 0));
    gc();
    expect(ref.deref()).toBeUndefined();
  });
});
