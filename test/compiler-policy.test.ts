// Which of V8's compilers the daemon runs by the fleet's size (src/compilerPolicy.ts): the flags,
// the operator's own choice on node's command line winning, and real node processes (the built
// dist/compilerPolicy.js) in which a hot function is optimised or not as the policy says
// (setFlagsFromString ignores an unknown flag silently, so a V8 that renamed one would leave the
// policy without effect).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilerFlags, compilersGiven, compilersOnFor, INTERPRETED_FLEET_NODES } from '../src/compilerPolicy.js';

const BUILT_POLICY = fileURLToPath(new URL('../dist/compilerPolicy.js', import.meta.url));

/** V8's optimisation status bits (%GetOptimizationStatus). */
const TURBOFANNED = 1 << 6;
const BASELINE = 1 << 15;

/** Holds the compilers as the CLI does, applies the policy for `nodes` (none: only held), runs a hot function. */
const HOT = `
const policy = await import(process.argv[1]);
const nodes = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
policy.holdCompilers(process.execArgv);
if (nodes !== undefined) policy.applyCompilerPolicy(process.execArgv, nodes);
function hot(x) { let s = 0; for (let i = 0; i < 100; i++) s += (x * i) % 7; return s; }
for (let i = 0; i < 50000; i++) hot(i);
console.log(%GetOptimizationStatus(hot));`;

/** The optimisation status of a hot function in a process run with `nodeFlags` and the policy for `nodes`. */
function hotStatus(nodeFlags: string[], nodes?: number): number {
  const r = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      ...nodeFlags,
      '--input-type=module',
      '-e',
      HOT,
      BUILT_POLICY,
      ...(nodes === undefined ? [] : [String(nodes)]),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('compilerFlags', () => {
  it('turns both compilers off for a fleet of up to 16 nodes, on for larger or unknown ones', () => {
    expect(INTERPRETED_FLEET_NODES).toBe(16);
    expect(compilersOnFor(0)).toBe(false);
    expect(compilersOnFor(1)).toBe(false);
    expect(compilersOnFor(16)).toBe(false);
    expect(compilersOnFor(17)).toBe(true);
    expect(compilersOnFor(10_000)).toBe(true);
    expect(compilersOnFor(undefined)).toBe(true);
    expect(compilerFlags([], 1)).toEqual(['--no-turbofan', '--no-sparkplug', '--liftoff-only']);
    expect(compilerFlags([], 1000)).toEqual(['--turbofan', '--sparkplug', '--no-liftoff-only']);
    expect(compilerFlags([])).toEqual(['--turbofan', '--sparkplug', '--no-liftoff-only']);
  });

  it("leaves the compilers to the operator's own node flags, however they are spelled", () => {
    for (const given of [
      ['--opt'],
      ['--no-opt'],
      ['--no_turbofan'],
      ['--sparkplug'],
      ['--no-sparkplug'],
      ['--jitless'],
      ['--lite-mode'],
      ['--lite_mode'],
      ['--maglev'],
      ['--always-turbofan'],
      ['--liftoff-only'],
      ['--no-liftoff'],
    ]) {
      expect(compilersGiven(given), given[0]).toBe(true);
      expect(compilerFlags(given, 1)).toEqual([]);
      expect(compilerFlags(given, 1000)).toEqual([]);
    }
    expect(compilersGiven(['--heap-growing-percent=30', '--optimize-for-size', '--enable-source-maps'])).toBe(false);
  });
});

describe('compilers in a real process', () => {
  it("sets only flags this Node's V8 accepts (node refuses an unknown one)", () => {
    for (const flag of [...compilerFlags([], 1), ...compilerFlags([], 1000)]) {
      const r = spawnSync(process.execPath, [flag, '-e', '0'], { encoding: 'utf8' });
      expect(r.status, `${flag}: ${r.stderr}`).toBe(0);
    }
    expect(spawnSync(process.execPath, ['--no-sparkplugs', '-e', '0']).status).not.toBe(0);
  });

  it('runs a held process and a 1-node one interpreted: a hot function is neither optimised nor baseline code', () => {
    for (const nodes of [undefined, 1, INTERPRETED_FLEET_NODES]) {
      const status = hotStatus([], nodes);
      expect(status & TURBOFANNED, `nodes ${nodes}`).toBe(0);
      expect(status & BASELINE, `nodes ${nodes}`).toBe(0);
    }
  });

  it('optimises a hot function once the policy applies for a larger fleet (at start or at a reload)', () => {
    expect(hotStatus([], INTERPRETED_FLEET_NODES + 1) & TURBOFANNED).toBe(TURBOFANNED);
    expect(hotStatus([], 10_000) & TURBOFANNED).toBe(TURBOFANNED);
  });

  it("keeps the operator's choice: --opt on node's command line optimises a 1-node process", () => {
    expect(hotStatus(['--opt'], 1) & TURBOFANNED).toBe(TURBOFANNED);
  });
});
