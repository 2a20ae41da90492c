// undici's HTTP/2 half (and node:http2 with it) is loaded only when a connection needs it
// (src/deps/undici.ts): the built module, in a fresh process, leaves node:http2 out, and the
// stand-in loads the real connectH2 at its first call.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { requireBuiltCli } from '../support/cliProcess.js';

const BUILT = fileURLToPath(new URL('../../dist/deps/undici.js', import.meta.url));

const PROBE = `
import { createRequire } from 'node:module';
const deps = await import(process.argv[1]);
const http2 = () => process.moduleLoadList.includes('NativeModule http2');
const before = http2();
const require = createRequire(process.argv[1]);
const h2 = require('undici/lib/dispatcher/client-h2.js');
let threw = false;
try { h2({}, {}); } catch { threw = true; }
const real = require('undici/lib/dispatcher/client-h2.js');
const replaced = real !== h2 && real.name === 'connectH2';
console.log(JSON.stringify({ before, after: http2(), client: typeof deps.Client, threw, replaced }));
`;

it('leaves node:http2 unloaded until the client calls its HTTP/2 half, which then loads for real', () => {
  requireBuiltCli();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, BUILT], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  // The call with no real client fails inside undici's own connectH2: it ran.
  expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true, client: 'function', threw: true, replaced: true });
});
