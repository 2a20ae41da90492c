// Prometheus view of the agent platform checker, computed at scrape time from its last results.
//
// ledger_agent_platform_key_valid carries a `reason` label (ok, unauthorized, forbidden, no_key)
// so an alert on `== 0` tells a rejected key (401) from a missing permission (403) or a missing
// key. It holds one series at a time: the last *verdict* on the key. A timeout or a 5xx says
// nothing about the key, so the series keeps its value through platform outages (no flapping
// alert); it is absent until the first verdict. Platform reachability is ledger_agent_platform_up.
import { Counter, Gauge, type Registry } from '../deps/promClient.js';
import { STATUS_CLASSES, type AgentCheckSource, type AgentPlatformCheck } from './types.js';
import { MAX_PROFILE_FIELD } from './profile.js';

export function agentPlatformCollectors(registry: Registry, checker: AgentCheckSource): void {
  const registers = [registry];
  // A gauge read from the last check; no sample before the first one.
  const fromLastCheck = (name: string, help: string, value: (last: AgentPlatformCheck) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const last = checker.last();
        if (last) this.set(value(last));
      },
    });

  fromLastCheck(
    'ledger_agent_platform_up',
    '1 if the agent platform answered the last check with an HTTP status below 500.',
    (last) => (last.up ? 1 : 0),
  );
  new Gauge({
    name: 'ledger_agent_platform_key_valid',
    help: 'Last verdict on the agent API key: 1 accepted (2xx), 0 rejected (401, 403) or missing; reason tells which.',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      const verdict = checker.lastKeyVerdict();
      if (verdict) this.set({ reason: verdict.reason }, verdict.keyValid ? 1 : 0);
    },
  });
  fromLastCheck(
    'ledger_agent_platform_last_check_timestamp_seconds',
    'Start time of the last agent platform check, seconds since the epoch.',
    (last) => last.at / 1000,
  );
  fromLastCheck(
    'ledger_agent_platform_check_duration_seconds',
    'Duration of the last agent platform check.',
    (last) => last.durationMs / 1000,
  );
  new Counter({
    name: 'ledger_agent_platform_requests_total',
    help: 'Requests sent to the agent platform, by HTTP status class (error: no HTTP answer).',
    labelNames: ['class'],
    registers,
    collect() {
      this.reset();
      const counts = checker.counts();
      for (const cls of STATUS_CLASSES) this.inc({ class: cls }, counts.get(cls) ?? 0);
    },
  });
  new Gauge({
    name: 'ledger_agent_platform_info',
    help: "Non-secret profile fields of the key's agent (id, name) while the key is accepted; always 1.",
    labelNames: ['id', 'name'],
    registers,
    collect() {
      this.reset();
      const verdict = checker.lastKeyVerdict();
      const profile = verdict?.reason === 'ok' ? verdict.profile : undefined;
      if (profile) this.set({ id: labelValue(profile.id), name: labelValue(profile.name) }, 1);
    },
  });
}

/** Profile values are scrubbed and bounded when parsed; bounded again as a label must never bloat. */
function labelValue(v: string | undefined): string {
  return v === undefined ? '' : [...v].slice(0, MAX_PROFILE_FIELD).join('');
}
