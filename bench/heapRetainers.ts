// What holds a V8 heap snapshot's memory: the dominator tree (Cooper, Harvey and Kennedy's
// iterative algorithm, weak edges left out), then per constructor or kind the objects' own size and
// the size they retain (an object retained by another of the same name counted once), largest first.
// With --per N also per node of an N-node fleet. With --filter NAME, the objects directly dominated
// by instances of NAME, summed by name (what a NodeState, a Client... holds).
// Usage: node --max-old-space-size=4096 dist-bench/bench/heapRetainers.js A.heapsnapshot [--per 1000] [--top 40]
//        [--filter NAME]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    per: { type: 'string' },
    top: { type: 'string', default: '40' },
    filter: { type: 'string' },
    tree: { type: 'string' },
  },
});

const s = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Snapshot;
const nf = s.snapshot.meta.node_fields;
const W = nf.length;
const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as [
  number,
  number,
  number,
  number,
];
const ef = s.snapshot.meta.edge_fields;
const EW = ef.length;
const [eType, eTo] = ['type', 'to_node'].map((f) => ef.indexOf(f)) as [number, number];
const nodeTypes = s.snapshot.meta.node_types[0];
const edgeTypes = s.snapshot.meta.edge_types[0];
const WEAK = edgeTypes.indexOf('weak');
const N = s.nodes.length / W;

// Each node's first edge, and its successors (strong edges only).
const firstEdge = new Int32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  firstEdge[i] = e;
  e += s.nodes[i * W + iEdges]! * EW;
}
firstEdge[N] = s.edges.length;

// Depth-first postorder from the root (node 0).
const post = new Int32Array(N).fill(-1);
const order: number[] = [];
{
  const stack = [0];
  const next = new Int32Array(N);
  const seen = new Uint8Array(N);
  seen[0] = 1;
  for (let i = 0; i < N; i++) next[i] = firstEdge[i]!;
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    let pushed = false;
    while (next[v]! < firstEdge[v + 1]!) {
      const e = next[v]!;
      next[v] = e + EW;
      if (s.edges[e + eType] === WEAK) continue;
      const w = s.edges[e + eTo]! / W;
      if (seen[w]) continue;
      seen[w] = 1;
      stack.push(w);
      pushed = true;
      break;
    }
    if (!pushed) {
      post[v] = order.length;
      order.push(v);
      stack.pop();
    }
  }
}

// Predecessors (strong edges from reachable nodes).
const predCount = new Int32Array(N + 1);
for (let v = 0; v < N; v++) {
  if (post[v]! < 0) continue;
  for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += EW)
    if (s.edges[e + eType] !== WEAK) predCount[s.edges[e + eTo]! / W + 1]!++;
}
for (let i = 0; i < N; i++) predCount[i + 1]! += predCount[i]!;
const preds = new Int32Array(predCount[N]!);
{
  const fill = predCount.slice();
  for (let v = 0; v < N; v++) {
    if (post[v]! < 0) continue;
    for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += EW)
      if (s.edges[e + eType] !== WEAK) {
        const w = s.edges[e + eTo]! / W;
        preds[fill[w]!++] = v;
      }
  }
}

// Immediate dominators, by postorder numbers.
const R = order.length;
const idom = new Int32Array(R).fill(-1);
idom[R - 1] = R - 1;
for (let changed = true; changed;) {
  changed = false;
  for (let k = R - 2; k >= 0; k--) {
    const v = order[k]!;
    let d = -1;
    for (let p = predCount[v]!; p < predCount[v + 1]!; p++) {
      let a = post[preds[p]!]!;
      if (a < 0 || idom[a] === -1) continue;
      if (d === -1) {
        d = a;
        continue;
      }
      let b = d;
      while (a !== b) {
        while (a < b) a = idom[a]!;
        while (b < a) b = idom[b]!;
      }
      d = a;
    }
    if (d !== -1 && idom[k] !== d) {
      idom[k] = d;
      changed = true;
    }
  }
}

const retained = new Float64Array(R);
for (let k = 0; k < R; k++) retained[k]! += s.nodes[order[k]! * W + iSize]!;
for (let k = 0; k < R - 1; k++) retained[idom[k]!]! += retained[k]!;

const PROPERTY = edgeTypes.indexOf('property');
const [eName] = ['name_or_index'].map((f) => ef.indexOf(f)) as [number];

/** A plain object is told by its first property names. */
function propertyNames(v: number): string {
  const names: string[] = [];
  for (let e = firstEdge[v]!; e < firstEdge[v + 1]! && names.length < 4; e += EW)
    if (s.edges[e + eType] === PROPERTY) names.push(s.strings[s.edges[e + eName]!]!);
  return names.join(',');
}

function label(v: number): string {
  const type = nodeTypes[s.nodes[v * W + iType]!]!;
  const name = s.strings[s.nodes[v * W + iName]!]!;
  if (type === 'object' && name === 'Object') return `{${propertyNames(v)}}`;
  if (type === 'object' || type === 'native') return name.slice(0, 70);
  if (type === 'closure') return `closure ${name.slice(0, 60)}`;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return '(string)';
  if (type === 'hidden' || type === 'array' || type === 'code') return `(${type}) ${name.slice(0, 50)}`;
  return `(${type})`;
}

const labels = order.map(label);
const per = values.per ? Number(values.per) : undefined;
const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
const perNode = (b: number) => (per ? `  ${(b / per).toFixed(0)} B/node` : '');
const top = Number(values.top);

interface Row {
  count: number;
  self: number;
  retained: number;
}
const rows = new Map<string, Row>();
const add = (key: string, self: number, ret: number) => {
  const r = rows.get(key) ?? { count: 0, self: 0, retained: 0 };
  r.count++;
  r.self += self;
  r.retained += ret;
  rows.set(key, r);
};

if (values.tree) {
  // The dominator tree from the root, down to objects retaining at least --tree KB, by edge name.
  const min = Number(values.tree) * 1024;
  const kids: number[][] = Array.from({ length: R }, () => []);
  for (let k = 0; k < R - 1; k++) if (retained[k]! >= min) kids[idom[k]!]!.push(k);
  const walk = (k: number, depth: number) => {
    if (depth > 12) return;
    for (const c of kids[k]!.sort((a, b) => retained[b]! - retained[a]!)) {
      process.stdout.write(`${'  '.repeat(depth)}${kb(retained[c]!)}${perNode(retained[c]!)}  ${labels[c]}\n`);
      walk(c, depth + 1);
    }
  };
  walk(R - 1, 0);
  process.exit(0);
}
if (values.filter) {
  // What instances of one name dominate directly.
  const holders = new Uint8Array(R);
  for (let k = 0; k < R; k++) if (labels[k] === values.filter) holders[k] = 1;
  for (let k = 0; k < R - 1; k++) if (holders[idom[k]!]) add(labels[k]!, s.nodes[order[k]! * W + iSize]!, retained[k]!);
} else {
  // Nearest ancestor with the same label: counted there.
  for (let k = 0; k < R - 1; k++) {
    let a = idom[k]!;
    let nested = false;
    for (let depth = 0; depth < 64 && a !== R - 1; depth++, a = idom[a]!)
      if (labels[a] === labels[k]) {
        nested = true;
        break;
      }
    add(labels[k]!, s.nodes[order[k]! * W + iSize]!, nested ? 0 : retained[k]!);
  }
}
let total = 0;
for (let k = 0; k < R; k++) total += s.nodes[order[k]! * W + iSize]!;
process.stdout.write(`${R} reachable objects, ${kb(total)}${perNode(total)}\n`);
process.stdout.write('retained            self                count  name\n');
for (const [name, r] of [...rows].sort((a, b) => b[1].retained - a[1].retained).slice(0, top))
  process.stdout.write(
    `${kb(r.retained).padStart(9)}${perNode(r.retained).padEnd(14)} ${kb(r.self).padStart(9)} ` +
      `${String(r.count).padStart(8)}  ${name}\n`,
  );
