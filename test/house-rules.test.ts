// The house rules, checked: no source file over 300 lines, no function over 60, no import cycle.
// Only declarative builders may be longer, each named below with its reason.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkHouse, functionSizes, importCycles, relativeImports } from './support/houseRules.js';

const LIMITS = { fileLines: 300, functionLines: 60 };

// file -> function name -> why it may be longer.
const ALLOWED_FUNCTIONS: Record<string, Record<string, string>> = {
  'tools/dashboards/exporter-health.ts': { exporterHealth: 'declarative dashboard builder: one chained panel list' },
  'tools/dashboards/fleet-overview.ts': { fleetOverview: 'declarative dashboard builder: one chained panel list' },
  'tools/dashboards/node-detail.ts': { nodeDetail: 'declarative dashboard builder: one chained panel list' },
  'tools/dashboards/validators-mining.ts': { validatorsMining: 'declarative dashboard builder: one chained panel list' },
};

const root = (dir: string): string => fileURLToPath(new URL(`../${dir}`, import.meta.url));

interface Offenders { longFiles: string[]; longFunctions: string[]; cycles: string[][]; excused: Set<string> }

const seen = new Map<string, Offenders>();

function offenders(dir: string): Offenders {
  const known = seen.get(dir);
  if (known) return known;
  const report = checkHouse(root(dir), LIMITS);
  const excused = new Set<string>();
  const longFiles = report.longFiles.map((f) => `${dir}/${f.file} (${f.lines} lines)`);
  const longFunctions = report.longFunctions
    .filter((fn) => {
      const file = `${dir}/${fn.file}`;
      const key = `${file}:${fn.name}`;
      const ok = ALLOWED_FUNCTIONS[file]?.[fn.name] !== undefined;
      if (ok) excused.add(key);
      return !ok;
    })
    .map((fn) => `${dir}/${fn.file}:${fn.line} ${fn.name} (${fn.lines} lines)`);
  const found = { longFiles, longFunctions, cycles: report.cycles, excused };
  seen.set(dir, found);
  return found;
}

describe('house rules', () => {
  for (const dir of ['src', 'tools']) {
    it(`${dir}/: no file over ${LIMITS.fileLines} lines, no function over ${LIMITS.functionLines}, no import cycle`, () => {
      const found = offenders(dir);
      expect(found.longFiles).toEqual([]);
      expect(found.longFunctions).toEqual([]);
      expect(found.cycles).toEqual([]);
    });
  }

  it('every exception is still needed', () => {
    const used = new Set([...offenders('src').excused, ...offenders('tools').excused]);
    const listed = Object.entries(ALLOWED_FUNCTIONS).flatMap(([file, fns]) => Object.keys(fns).map((fn) => `${file}:${fn}`));
    expect(listed.filter((entry) => !used.has(entry))).toEqual([]);
  });

  describe('the checker itself', () => {
    it('measures functions, methods and arrow functions, nested ones on their own', () => {
      const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
      const text = [
        `export function outer() {`, body(3), `  const inner = () => {`, body(4), `  };`, `}`,
        `class C {`, `  method() {`, body(2), `  }`, `}`,
      ].join('\n');
      const sizes = functionSizes('x.ts', text).map((f) => [f.name, f.line, f.lines]);
      expect(sizes).toEqual([['outer', 1, 11], ['inner', 5, 6], ['method', 13, 4]]);
    });

    it('finds imports of every form, type-only and dynamic included', () => {
      const text = [
        `import { a } from './a.js';`, `import type { B } from '../b.js';`, `export * from './c.js';`,
        `import fs from 'node:fs';`, `const d = await import('./d.js');`, `type E = typeof import('./e.js');`,
      ].join('\n');
      expect(relativeImports('/r/s/x.ts', text)).toEqual(['/r/s/a.ts', '/r/b.ts', '/r/s/c.ts', '/r/s/d.ts', '/r/s/e.ts']);
    });

    it('reports a cycle and only the files in it', () => {
      const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', ['e']], ['f', []]]);
      expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    });
  });
});
