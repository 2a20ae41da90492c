// Alerts on watched accounts' custom tokens (rule group ledger-fleet-watch), one instance per
// configured token or allowance, labelled name, network, account, token (and spender): a balance
// below its minBalance, and an allowance above its max (a security alert: the spender may move
// more than the owner meant). An amount not known (not read, or its token's info not read yet)
// decides nothing.
import { TOKEN_METRICS as T } from '../../../watch/tokenFamilies.js';
import { entriesOf, type WatchedAccountView } from '../../../watch/types.js';
import type { AlertDefinition, AlertSample, EvalContext, Labels } from '../types.js';
import { watchLabels, WATCH_GROUP, type Verdict } from './watchSupport.js';

const accounts = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'account');
const account = 'Account {{ $labels.name }} ({{ $labels.account }}) of network {{ $labels.network }}';

// The instance labels of each item, kept while the entry's labels are the same object (watchLabels).
const kept = new Map<string, { base: Labels; labels: Labels }>();

function itemLabels(v: WatchedAccountView, extra: Record<string, string>): Labels {
  const base = watchLabels(v);
  const key = `${v.name}\u0000${Object.values(extra).join('\u0000')}`;
  const k = kept.get(key);
  if (k?.base === base) return k.labels;
  if (kept.size > 100_000) kept.clear();
  const labels = { ...base, ...extra };
  kept.set(key, { base, labels });
  return labels;
}

function perItem<T>(
  list: readonly WatchedAccountView[],
  items: (v: WatchedAccountView) => readonly T[] | undefined,
  extra: (t: T) => Record<string, string>,
  verdict: (t: T) => Verdict,
): AlertSample[] {
  const out: AlertSample[] = [];
  for (const v of list)
    for (const t of items(v) ?? []) {
      const r = verdict(t);
      if (r === false) continue;
      const labels = itemLabels(v, extra(t));
      out.push(r === undefined ? { labels, value: 0, hold: true } : { labels, value: r });
    }
  return out;
}

export const TOKEN_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerTokenBalanceLow',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: "Only for tokens with minBalance (in the token's own decimals, from getTokenInfo).",
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => `max by (name, network, account, token) (${T.balance} < ${T.minBalance})`,
    summary: () => 'Account {{ $labels.name }} ({{ $labels.network }}) is running low on token {{ $labels.token }}',
    description: () =>
      `${account} holds {{ $value }} of token {{ $labels.token }}, below its configured minimum balance.`,
    evaluate: (ctx) =>
      perItem(
        accounts(ctx),
        (v) => v.tokenBalances,
        (t) => ({ token: t.tokenId }),
        (t) =>
          t.minBalance === undefined
            ? false
            : t.balanceTokens === undefined
              ? undefined
              : t.balanceTokens < t.minBalance && t.balanceTokens,
      ),
  },
  {
    name: 'LedgerTokenAllowanceHigh',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'A security alert: the spender may move more of the token than the configured max, with no further\n' +
      "signature of the owner's. Revoke or lower the allowance unless it was meant.",
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () => `max by (name, network, account, token, spender) (${T.allowance} > ${T.allowanceMax})`,
    summary: () =>
      'Account {{ $labels.name }} ({{ $labels.network }}) lets {{ $labels.spender }} spend more than its max',
    description: () =>
      `${account} has allowed spender {{ $labels.spender }} to move {{ $value }} of token {{ $labels.token }}, ` +
      `above the configured max: that spender can take it without asking.`,
    evaluate: (ctx) =>
      perItem(
        accounts(ctx),
        (v) => v.tokenAllowances,
        (a) => ({ token: a.tokenId, spender: a.spender }),
        (a) => (a.allowanceTokens === undefined ? undefined : a.allowanceTokens > a.max && a.allowanceTokens),
      ),
  },
];
