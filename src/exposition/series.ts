// Grouping of a family's samples into series groups: one histogram or summary "metric" (all
// buckets or quantiles of one label set plus its _sum and _count) is one group, any other
// sample is a group of its own. Both the series cap and the renderer work on whole groups so
// a histogram is never cut in half or scattered.
import type { MetricFamily, Sample } from './types.js';
import { parseFloatToken } from './grammar.js';

/** Groups in order of first appearance; inside a group buckets/quantiles ascending, then _sum, _count. */
export function seriesGroups(family: MetricFamily): Sample[][] {
  const bound = family.type === 'histogram' ? 'le' : family.type === 'summary' ? 'quantile' : undefined;
  if (bound === undefined) return family.samples.map((s) => [s]);
  const groups = new Map<string, Sample[]>();
  for (const s of family.samples) {
    const key = labelKey(s.labels, bound);
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  return [...groups.values()].map((g) => orderGroup(g, family.name, bound));
}

function orderGroup(samples: Sample[], base: string, bound: string): Sample[] {
  const rank = (s: Sample): number => (s.name === `${base}_sum` ? 1 : s.name === `${base}_count` ? 2 : 0);
  // Array.prototype.sort is stable, so equal keys keep the upstream order.
  return [...samples].sort((a, b) => {
    const r = rank(a) - rank(b);
    if (r !== 0 || rank(a) !== 0) return r;
    return boundValue(a, bound) - boundValue(b, bound);
  });
}

function boundValue(s: Sample, bound: string): number {
  // The parser has checked the bound is a float; anything else sorts last.
  const v = parseFloatToken(s.labels[bound] ?? '');
  return v === undefined || Number.isNaN(v) ? Infinity : v;
}

/** Identity of a label set, ignoring one label; label order does not matter. */
export function labelKey(labels: Record<string, string>, ignore?: string): string {
  // Most samples carry none or one label besides `ignore` (le, quantile): the same key, without
  // building, filtering and sorting entry arrays (this runs for every sample parsed).
  const names = Object.keys(labels);
  const rest = ignore !== undefined && Object.hasOwn(labels, ignore) ? names.length - 1 : names.length;
  if (rest === 0) return '[]';
  if (rest === 1) {
    const name = names[0] === ignore ? names[1]! : names[0]!;
    return `[[${JSON.stringify(name)},${JSON.stringify(labels[name])}]]`;
  }
  const entries = Object.entries(labels).filter(([k]) => k !== ignore);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}
