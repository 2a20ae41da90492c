// glibc's malloc setting of src/mallocPolicy.ts: every way we start the daemon carries it (the
// image, the systemd unit, `npm start`, `npm run bench`), and glibc on this machine does what it
// is there for, in real node processes: after a large buffer was freed, buffers of a few hundred
// KB land in glibc's heap without the setting and are mapped apart with it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MALLOC_ENV, mallocPolicyGiven } from '../src/mallocPolicy.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const assignments = Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`);

/**
 * KB by which glibc's heap ([heap] in smaps) grows for 24 live buffers of 256 KB, allocated after a 4 MB buffer was
 * freed.
 */
const HEAP_GROWTH = `
import { readFileSync } from 'node:fs';
const heapKb = () => {
  let kb = 0, on = false;
  for (const l of readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)) on = l.trimEnd().endsWith('[heap]');
    else if (on && l.startsWith('Rss:')) kb += Number(l.split(/\\s+/)[1]);
  }
  return kb;
};
// The big buffer's own mapping (glibc maps it apart: it is above the default threshold), found as
// the one that was not there before it: RSS alone can drop for other reasons (V8 shrinking its heap).
const maps = () =>
  new Set(readFileSync('/proc/self/maps', 'utf8').split('\\n').filter((l) => {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(l);
    const size = m ? parseInt(m[2], 16) - parseInt(m[1], 16) : 0;
    return size >= 4 << 20 && size <= (4 << 20) + (64 << 10);
  }).map((l) => l.split(' ')[0]));
const earlier = maps();
let big = Buffer.allocUnsafeSlow(4 << 20).fill(1);
const own = [...maps()].filter((r) => !earlier.has(r));
if (own.length !== 1) throw new Error('the 4 MB buffer has no mapping of its own: ' + own.length);
big = undefined;
// V8 may free the buffer's memory on a helper thread after the collection: wait (bounded) until
// its mapping is gone, so the threshold was raised before the buffers below.
let freed = false;
for (let i = 0; i < 100 && !freed; i++) {
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 20));
  freed = !maps().has(own[0]);
}
if (!freed) throw new Error('the 4 MB buffer was not given back within 100 collections');
const before = heapKb();
const keep = [];
for (let i = 0; i < 24; i++) keep.push(Buffer.allocUnsafeSlow(256 << 10).fill(2));
console.log(heapKb() - before, keep.length);`;

function heapGrowthKb(env: NodeJS.ProcessEnv): number {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', HEAP_GROWTH], {
    encoding: 'utf8',
    timeout: 30_000,
    env,
  });
  expect(r.status, r.stderr).toBe(0);
  const [kb, kept] = r.stdout.trim().split(' ').map(Number);
  expect(kept).toBe(24);
  return kb!;
}

describe('malloc policy', () => {
  it('is in the image, the systemd unit and the npm scripts that start the daemon', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    for (const a of assignments) expect(runtime).toMatch(new RegExp(`^ENV ${a}$`, 'm'));
    const unit = readFileSync(path.join(ROOT, 'deploy', 'systemd', 'ledger-fleet-exporter.service'), 'utf8');
    for (const a of assignments) expect(unit).toMatch(new RegExp(`^Environment=${a}$`, 'm'));
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const name of ['start', 'bench'])
      for (const a of assignments) expect(scripts[name]).toMatch(new RegExp(`(^|&& )${a} (exec )?node `));
  });

  it('is seen as given only when every variable is set', () => {
    expect(mallocPolicyGiven({ ...MALLOC_ENV })).toBe(true);
    expect(mallocPolicyGiven({})).toBe(false);
    expect(mallocPolicyGiven(Object.fromEntries(Object.keys(MALLOC_ENV).map((k) => [k, ''])))).toBe(false);
  });

  it("keeps glibc's heap from taking buffers of a few hundred KB after a large one was freed", () => {
    const env = { ...process.env };
    for (const k of Object.keys(MALLOC_ENV)) delete env[k];
    // Without it glibc raised its mapping threshold to the freed 4 MB: the 6 MB come from its heap.
    expect(heapGrowthKb(env)).toBeGreaterThan(4 * 1024);
    expect(heapGrowthKb({ ...env, ...MALLOC_ENV })).toBeLessThan(1024);
  });
});
