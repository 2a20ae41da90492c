// Who was paid in which block, for getBlockRewards [height]. Payouts change only at epoch
// boundaries and control actions, so the history is a list of spans with one payout list each,
// plus the miners' settlements paid in an epoch's first block. Bounded: the oldest span stretches
// back to block 0 once older ones are dropped (a node answers every past height).
import type { RewardEntry } from './ledger-validators.js';

interface Span {
  from: number;
  to: number;
  payouts: readonly RewardEntry[];
}

const MAX_SPANS = 512;
const MAX_SETTLEMENTS = 64;

export class RewardHistory {
  private readonly spans: Span[] = [];
  private readonly settlements = new Map<number, RewardEntry[]>();

  /** Blocks [from, to] each paid `payouts` (the same list object for a run of spans merges). */
  record(from: number, to: number, payouts: readonly RewardEntry[]): void {
    const last = this.spans[this.spans.length - 1];
    if (last && last.payouts === payouts && last.to === from - 1) {
      last.to = to;
      return;
    }
    this.spans.push({ from: this.spans.length === 0 ? 0 : from, to, payouts });
    if (this.spans.length > MAX_SPANS) {
      this.spans.shift();
      this.spans[0]!.from = 0;
    }
  }

  /** Miner rewards confirmed in the first block of an epoch. */
  settle(height: number, entries: RewardEntry[]): void {
    if (entries.length === 0) return;
    this.settlements.set(height, entries);
    if (this.settlements.size > MAX_SETTLEMENTS) this.settlements.delete(this.settlements.keys().next().value!);
  }

  /** The rewards of a block, or undefined past the newest recorded block. */
  at(height: number): RewardEntry[] | undefined {
    for (let i = this.spans.length - 1; i >= 0; i--) {
      const s = this.spans[i]!;
      if (height > s.to) return i === this.spans.length - 1 ? undefined : [];
      if (height >= s.from) return [...s.payouts, ...(this.settlements.get(height) ?? [])];
    }
    return undefined;
  }
}
