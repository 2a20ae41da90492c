// An entry's state in words, by its kind's module (watch/kinds/): the status page and
// /api/v1/watch show it.
import { watchKind } from '../watch/kinds/registry.js';
import type { WatchedEntryView, WatchState } from '../watch/types.js';

export { accountState, minerState, ordinal, tokens, validatorState } from '../watch/words.js';
export type { WatchState };

export function watchState(v: WatchedEntryView): WatchState {
  return watchKind(v.kind).state(v);
}
