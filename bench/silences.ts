// `node dist-bench/bench/silences.js`: what silences cost. (1) Matching: N silences (equality and
// regular-expression matchers, on V8's linear engine) asked about M alerts, as the mute stage
// asks at each notification decision and each /api/v2/alerts; the median of runs. (2) Time to
// mute: from a POST /api/v2/silences handler call until the mute stage's check sees the silence,
// and until the handler answers (its file written and fsynced in a real directory).
// Options: --silences 1000 --alerts 1000 --runs 9. Figures are printed, never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { postSilence } from '../src/alerting/api/silencesV2.js';
import { muting, mutedBy } from '../src/alerting/notify/mute.js';
import { SilenceKeeper } from '../src/alerting/silences/keeper.js';
import { SilenceStore } from '../src/alerting/silences/store.js';
import type { Matcher } from '../src/alerting/silences/types.js';
import { createLogger } from '../src/logger.js';
import { Secrets } from '../src/redact.js';

const { values: v } = parseArgs({
  options: {
    silences: { type: 'string', default: '1000' },
    alerts: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '9' },
  },
});
const N = Number(v.silences);
const M = Number(v.alerts);
const RUNS = Number(v.runs);
const HOUR = 3_600_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const actor = { user: 'bench', via: 'api' } as const;

/** The first pass after the silences changed (nothing remembered) and the median of the passes after it. */
function matchingCost(regexShare: number): { cold: number; ms: number; silenced: number } {
  const now = Date.now();
  const store = new SilenceStore({ alertLabels: () => undefined, ackMaxMs: HOUR });
  for (let i = 0; i < N; i++) {
    const regex = i < N * regexShare;
    const node: Matcher = regex
      ? { name: 'node', value: `val-${i}-(eu|us)-[0-9]+`, isRegex: true, isEqual: true }
      : { name: 'node', value: `val-${i}-eu-1`, isRegex: false, isEqual: true };
    const w = store.upsert(
      {
        matchers: [{ name: 'alertname', value: 'LedgerNodeDown', isRegex: false, isEqual: true }, node],
        startsAt: now,
        endsAt: now + HOUR,
        createdBy: 'bench',
        comment: '',
      },
      actor,
      now,
    );
    if ('error' in w) throw new Error(w.error);
  }
  const alerts = Array.from({ length: M }, (_, i) => ({
    alertname: 'LedgerNodeDown',
    node: `val-${i}-eu-1`,
    network: 'main',
    severity: 'critical',
  }));
  const times: number[] = [];
  let silenced = 0;
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    silenced = 0;
    for (const labels of alerts) if (store.silencedBy(labels, now).length > 0) silenced++;
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { cold: times[0]!, ms: median(times.slice(1)), silenced };
}

async function timeToMute(): Promise<{ visibleUs: number; answeredMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'lfe-bench-silences-'));
  const keeper = new SilenceKeeper({
    stateDir: () => dir,
    wallNow: () => Date.now(),
    ackMaxMs: () => HOUR,
    alertLabels: () => undefined,
    logger: createLogger({ level: 'silent' }),
    secrets: new Secrets(),
  });
  await keeper.start();
  const deps = { silences: keeper.store, wallNow: () => Date.now(), saved: () => keeper.saved() };
  const visible: number[] = [];
  const answered: number[] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const labels = { alertname: 'LedgerNodeDown', node: `mute-${r}` };
      const now = Date.now();
      const body = {
        matchers: [{ name: 'node', value: labels.node, isRegex: false, isEqual: true }],
        startsAt: new Date(now).toISOString(),
        endsAt: new Date(now + HOUR).toISOString(),
        createdBy: 'bench',
        comment: '',
      };
      const check = (l: typeof labels) =>
        mutedBy(muting({ silences: (x, wall) => keeper.store.silencedBy(x, wall) }, l, Date.now()));
      const t0 = process.hrtime.bigint();
      const reply = postSilence(deps, { path: {}, params: new URLSearchParams(), body, user: 'bench', headers: {} });
      // The handler's store call ran synchronously: the very next mute decision sees the silence.
      if (check(labels) === undefined) throw new Error('not muted after the write');
      visible.push(Number(process.hrtime.bigint() - t0) / 1e3);
      await reply;
      answered.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    await keeper.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { visibleUs: median(visible), answeredMs: median(answered) };
}

for (const share of [0, 0.5, 1]) {
  const { cold, ms, silenced } = matchingCost(share);
  console.log(
    `match ${N} silences (${share * 100}% regex) x ${M} alerts (${silenced} silenced): ` +
      `first pass after a change ${cold.toFixed(1)} ms, then median ${ms.toFixed(1)} ms a pass (${RUNS - 1} runs)`,
  );
}
const mute = await timeToMute();
console.log(
  `time to mute: the next mute decision sees a POSTed silence ${mute.visibleUs.toFixed(0)} µs after the ` +
    `handler starts (median); the POST answers after the fsync, ${mute.answeredMs.toFixed(1)} ms (median of ${RUNS})`,
);
