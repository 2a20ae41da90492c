// Sums a V8 heap snapshot's objects by kind (code, closures, strings, objects...) and, given two,
// prints the difference, with the names that account for most of it.
// Usage: node dist-bench/bench/heapSummary.js A.heapsnapshot [B.heapsnapshot]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

interface Summary {
  total: number;
  count: number;
  byType: Map<string, number>;
  byName: Map<string, number>;
}

function summarize(file: string): Summary {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const byType = new Map<string, number>();
  const byName = new Map<string, number>();
  let total = 0;
  let count = 0;
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + iType]!]!;
    const size = s.nodes[i + iSize]!;
    const name = type === 'string' || type === 'concatenated string' ? '(string)' : s.strings[s.nodes[i + iName]!]!;
    total += size;
    count++;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const key = `${type}: ${name.slice(0, 60)}`;
    byName.set(key, (byName.get(key) ?? 0) + size);
  }
  return { total, count, byType, byName };
}

const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
const [a, b] = process.argv.slice(2);
if (!a) throw new Error('usage: heapSummary.js A.heapsnapshot [B.heapsnapshot]');
const A = summarize(a);
if (!b) {
  process.stdout.write(`total ${kb(A.total)} in ${A.count} objects\n`);
  for (const [t, n] of [...A.byType].sort((x, y) => y[1] - x[1])) process.stdout.write(`  ${t}: ${kb(n)}\n`);
} else {
  const B = summarize(b);
  process.stdout.write(`total ${kb(A.total)} -> ${kb(B.total)} (${A.count} -> ${B.count} objects)\n`);
  const types = new Set([...A.byType.keys(), ...B.byType.keys()]);
  const rows = [...types].map((t) => [t, A.byType.get(t) ?? 0, B.byType.get(t) ?? 0] as const);
  for (const [t, x, y] of rows.sort((p, q) => q[1] - p[1]))
    process.stdout.write(`  ${t}: ${kb(x)} -> ${kb(y)} (${kb(y - x)})\n`);
  const names = new Set([...A.byName.keys(), ...B.byName.keys()]);
  const moved = [...names].map((k) => [k, (B.byName.get(k) ?? 0) - (A.byName.get(k) ?? 0)] as const);
  process.stdout.write('largest changes by name:\n');
  for (const [k, d] of moved.sort((p, q) => Math.abs(q[1]) - Math.abs(p[1])).slice(0, 25))
    process.stdout.write(`  ${kb(d)}  ${k}\n`);
}
