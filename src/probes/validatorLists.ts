// The nodes of one network nearly always report the same validators: one list object then serves
// all of them, so 10,000 nodes hold a few lists instead of 10,000 copies (~22 MB of heap at 10,000
// nodes; the per-list set key of state/snapshot.ts is shared too). Lists are never mutated once
// parsed. The table is bounded and holds its lists weakly: a list no node keeps any more is freed.
import type { ValidatorInfo } from '../domain.js';
import { sameValidators } from './parse.js';

const MAX_LISTS = 64;
const recent = new Map<string, WeakRef<ValidatorInfo[]>>();

/** An equal list already held by another node, else `list` itself (remembered for the next node). */
export function sharedValidators(list: ValidatorInfo[]): ValidatorInfo[] {
  const first = list[0];
  if (!first) return list;
  // Cheap to build and rarely equal for different sets; equality is then checked in full.
  const key = `${list.length}:${first.address}:${first.stake}:${list[list.length - 1]!.address}`;
  const held = recent.get(key)?.deref();
  if (held && sameValidators(held, list)) return held;
  recent.delete(key);
  if (recent.size >= MAX_LISTS) recent.delete(recent.keys().next().value!);
  recent.set(key, new WeakRef(list));
  return list;
}
