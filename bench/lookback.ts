// `npm run bench:lookback`: what the alert engine's look-back costs when it evaluates often. N watched
// validators (default 334, commissions unchanged but for one change each half-way) evaluated by the
// watch validator alerts every --interval (default 1 s) over --hours of simulated time on an
// injected clock (no waiting). Prints the heap after a full GC and the time per evaluation over the
// first and the last simulated minute (CPU time, and wall time, which a busy machine stretches). Figures are
// printed, never asserted.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { WATCH_VALIDATOR_ALERTS } from '../src/alerting/rules/definitions/watchValidators.js';
import { AlertEngine } from '../src/alerting/rules/engine.js';
import type { FleetSnapshot } from '../src/state/snapshot.js';
import type { WatchedValidatorView } from '../src/watch/types.js';

const { values: v } = parseArgs({
  options: {
    validators: { type: 'string', default: '334' },
    interval: { type: 'string', default: '1000' },
    hours: { type: 'string', default: '1' },
  },
});
const count = Number(v.validators);
const intervalMs = Number(v.interval);
const evaluations = Math.round((Number(v.hours) * 3_600_000) / intervalMs);

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
};

function snapshot(i: number): FleetSnapshot {
  const validators: WatchedValidatorView[] = [];
  for (let k = 0; k < count; k++)
    validators.push({
      kind: 'validator',
      name: `v${k}`,
      address: k.toString(16).padStart(64, '0'),
      network: 'main',
      active: true,
      rewarded: true,
      jailed: false,
      commissionRatio: i < evaluations / 2 ? 0.05 : 0.06,
      seatMarginRatio: 1,
      consecutiveFailures: 0,
      failures: {},
      intervalMs: 30_000,
    });
  return { nodes: [], networks: [], watch: { entries: validators } };
}

const engine = new AlertEngine({
  runbookBase: 'alerts/RUNBOOKS.md',
  instance: 'bench',
  definitions: WATCH_VALIDATOR_ALERTS,
});
const exporter = { pollOverruns: new Map<string, number>(), evidenceWriteErrors: 0 };
const before = heapMb();
const start = Date.UTC(2026, 10, 28);
const lastMinute = Math.min(evaluations, Math.round(60_000 / intervalMs));
/** Wall ms and CPU µs of the evaluations of the first and of the last simulated minute. */
const first = { ms: 0, cpuUs: 0 };
const last = { ms: 0, cpuUs: 0 };
const t0 = performance.now();
for (let i = 0; i < evaluations; i++) {
  const snap = snapshot(i);
  const e0 = performance.now();
  const c0 = process.cpuUsage();
  engine.evaluate({ snapshot: snap, exporter }, start + i * intervalMs);
  const into = i < lastMinute ? first : i >= evaluations - lastMinute ? last : undefined;
  if (into) {
    into.ms += performance.now() - e0;
    const c = process.cpuUsage(c0);
    into.cpuUs += c.user + c.system;
  }
}
const totalS = (performance.now() - t0) / 1000;
const after = heapMb();
console.log(
  `look-back: ${count} validators, evaluation every ${intervalMs} ms, ${evaluations} evaluations ` +
    `(${v.hours} h simulated, ${totalS.toFixed(1)} s run)`,
);
console.log(
  `  heap after a full GC: ${before.toFixed(1)} MB before, ${after.toFixed(1)} MB after ` +
    `(+${(after - before).toFixed(1)} MB)`,
);
const per = (m: { ms: number; cpuUs: number }) =>
  `${(m.cpuUs / 1000 / lastMinute).toFixed(2)} ms CPU (${(m.ms / lastMinute).toFixed(2)} ms wall)`;
console.log(`  per evaluation, first simulated minute: ${per(first)}; last simulated minute: ${per(last)}`);
console.log(`  alerts active: ${engine.list().filter((a) => a.state !== 'resolved').length}`);
