// The state of a watched delegator or agent in words, as the status page and /api/v1/watch show
// it: "3 delegations, 1,250.0 tokens; all validators active and paid", "score 42.5%, decay 50%
// (halves next in 1,234 epochs, ~4.3 days at 3 s blocks)". Pure.
import type { WatchedAgentView, WatchedDelegatorView, WatchState } from './types.js';
import { tokens, unread } from './words.js';

const pct = (ratio: number): string => `${Math.round(ratio * 1000) / 10}%`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const short = (address: string): string => `${address.slice(0, 8)}…`;
/** Block time of real networks (reference-node-facts.md): only for "about how long" in words. */
const BLOCK_SECONDS = 3;

export function delegatorState(v: WatchedDelegatorView): WatchState {
  const pending = unread(v);
  if (!v.delegations) return pending ?? { status: 'unknown', text: 'not read yet' };
  if (v.delegations.length === 0) return { status: 'up', text: 'no delegations' };
  const total = v.delegations.reduce((sum, d) => sum + d.tokens, 0);
  const notes: string[] = [];
  let status: WatchState['status'] = 'up';
  for (const d of v.delegations) {
    if (d.active === false) {
      notes.push(`${short(d.validator)} NOT in the active set: earns nothing`);
      status = 'down';
    } else if (d.rewarded === false) {
      notes.push(`${short(d.validator)} OFFLINE: unpaid until the next epoch`);
      status = 'down';
    }
    if (v.maxCommissionBps !== undefined && d.commissionRatio * 10_000 > v.maxCommissionBps) {
      notes.push(`${short(d.validator)} charges ${pct(d.commissionRatio)}, above ${pct(v.maxCommissionBps / 10_000)}`);
      if (status === 'up') status = 'degraded';
    }
  }
  const n = v.delegations.length;
  const head = `${n} delegation${n === 1 ? '' : 's'}, ${tokens(total)} tokens`;
  const tail = notes.length ? notes.join('; ') : 'every validator active and paid';
  return { status: pending && status === 'up' ? 'degraded' : status, text: `${head}; ${tail}` };
}

export function agentState(a: WatchedAgentView): WatchState {
  const pending = unread(a);
  if (a.registered === undefined) return pending ?? { status: 'unknown', text: 'not read yet' };
  if (!a.registered) return { status: 'down', text: 'NOT registered as an agent on this network' };
  const parts: string[] = [];
  let status: WatchState['status'] = pending ? 'degraded' : 'up';
  const total = a.scores?.total;
  if (total !== undefined) {
    const low = a.minScore !== undefined && total * 10_000 < a.minScore;
    if (low) status = 'degraded';
    const minimum = a.minScore === undefined ? '' : `${low ? ' below' : ', minimum'} ${pct(a.minScore / 10_000)}`;
    parts.push(`score ${pct(total)}${minimum}`);
  }
  if (a.decayRatio !== undefined) {
    const next = a.epochsToNextHalving;
    const days = next === undefined || !a.epochBlocks ? undefined : (next * a.epochBlocks * BLOCK_SECONDS) / 86_400;
    const when =
      next === undefined
        ? ''
        : ` (halves next in ${int(next)} epoch${next === 1 ? '' : 's'}, ~${days!.toFixed(1)} days at 3 s blocks)`;
    parts.push(`decay ${pct(a.decayRatio)}${when}`);
  }
  if (a.attestations !== undefined) parts.push(`${int(a.attestations)} attestations (sum ${a.attestationScoreSum})`);
  if (pending) parts.push(pending.text);
  return { status, text: parts.join('; ') };
}
