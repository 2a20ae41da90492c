// Alertmanager's API v2 for alerts (GET /api/v2/alerts, GET /api/v2/alerts/groups) and its
// status (GET /api/v2/status), over the built-in engine's firing alerts: each with its receivers
// and `status.state` active or suppressed (silencedBy: silences' ids; mutedBy: a maintenance
// window). Pending alerts are left out, as Prometheus sends Alertmanager only firing ones.
import { labelsKey, pickLabels } from '../rules/labels.js';
import type { Labels } from '../rules/types.js';
import type { Muting } from '../notify/mute.js';
import { compileMatchers, type LabelTest } from '../silences/matchers.js';
import { compileAnchored } from '../silences/linearRegex.js';
import { boolParam, iso, type ApiAnswer, type ApiCall } from './call.js';
import { filterMatchers } from './silencesV2.js';

export interface FiringAlert {
  fingerprint: string;
  labels: Labels;
  annotations: Record<string, string>;
  /** Wall-clock ms. */
  startsAt: number;
  /** The route's receivers and the labels it groups by. */
  receivers: readonly string[];
  groupBy: readonly string[];
  routeKey: string;
  muting: Muting | undefined;
}

export interface AlertsApiDeps {
  firing(): FiringAlert[];
  wallNow(): number;
  /** When an alert not seen again counts as resolved (Prometheus: 4 evaluation intervals). */
  resolveAfterMs(): number;
  generatorUrl: string;
}

function gettableAlert(a: FiringAlert, now: number, deps: AlertsApiDeps) {
  const suppressed = a.muting !== undefined;
  return {
    labels: a.labels,
    annotations: a.annotations,
    receivers: a.receivers.map((name) => ({ name })),
    fingerprint: a.fingerprint,
    startsAt: iso(a.startsAt),
    updatedAt: iso(now),
    endsAt: iso(now + deps.resolveAfterMs()),
    generatorURL: deps.generatorUrl,
    status: {
      state: suppressed ? 'suppressed' : 'active',
      silencedBy: a.muting?.silences ?? [],
      inhibitedBy: [],
      mutedBy: a.muting?.window !== undefined ? [a.muting.window] : [],
    },
  };
}

/** The alerts the query asks for (filter, receiver, active, silenced, inhibited, muted, unprocessed). */
function selected(deps: AlertsApiDeps, call: ApiCall): FiringAlert[] | ApiAnswer {
  const filter = filterMatchers(call.params);
  if (!Array.isArray(filter)) return filter;
  let matches: LabelTest = () => true;
  if (filter.length > 0) {
    const test = compileMatchers(filter);
    // A filter every label set matches (e.g. `a=~".*"`) filters nothing, as in Alertmanager.
    if (typeof test === 'function') matches = test;
    else if (!/empty string/.test(test.error)) return { status: 400, body: test.error };
  }
  const flags: Record<string, boolean> = {};
  for (const name of ['active', 'silenced', 'inhibited', 'muted', 'unprocessed']) {
    const v = boolParam(call.params, name, true);
    if (typeof v === 'object') return { status: 400, body: v.error };
    flags[name] = v;
  }
  const receiverParam = call.params.get('receiver');
  const receiver = receiverParam ? compileAnchored(receiverParam) : undefined;
  if (receiver && !(receiver instanceof RegExp)) return { status: 400, body: `receiver: ${receiver.error}` };
  return deps.firing().filter((a) => {
    if (!matches(a.labels)) return false;
    if (receiver && !a.receivers.some((r) => receiver.test(r))) return false;
    if (!a.muting) return flags.active!;
    if (a.muting.silences.length > 0 && !flags.silenced) return false;
    return !(a.muting.window !== undefined && !flags.muted);
  });
}

export function listAlertsV2(deps: AlertsApiDeps, call: ApiCall): ApiAnswer {
  const alerts = selected(deps, call);
  if (!Array.isArray(alerts)) return alerts;
  const now = deps.wallNow();
  return { status: 200, body: alerts.map((a) => gettableAlert(a, now, deps)) };
}

/** Alertmanager's groups: one per receiver, route and value of the route's groupBy labels. */
export function listAlertGroupsV2(deps: AlertsApiDeps, call: ApiCall): ApiAnswer {
  const alerts = selected(deps, call);
  if (!Array.isArray(alerts)) return alerts;
  const now = deps.wallNow();
  const groups = new Map<string, { labels: Labels; receiver: { name: string }; alerts: unknown[] }>();
  for (const a of alerts) {
    const labels = pickLabels(a.labels, a.groupBy);
    for (const name of a.receivers) {
      const key = `${name}\u0000${a.routeKey}\u0000${labelsKey(labels)}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { labels, receiver: { name }, alerts: [] }));
      g.alerts.push(gettableAlert(a, now, deps));
    }
  }
  return { status: 200, body: [...groups.values()] };
}

export interface StatusFacts {
  version: string;
  revision: string;
  startedAt: number;
}

/** GET /api/v2/status: who answers (a single instance: cluster disabled); the config is not shown. */
export function statusV2(facts: StatusFacts): ApiAnswer {
  return {
    status: 200,
    body: {
      cluster: { status: 'disabled', peers: [] },
      versionInfo: {
        version: facts.version,
        revision: facts.revision,
        branch: '',
        buildUser: '',
        buildDate: '',
        goVersion: `ledger-fleet-exporter on Node.js ${process.version}`,
      },
      config: { original: '# the built-in alerting of ledger-fleet-exporter: see its config file\n' },
      uptime: iso(facts.startedAt),
    },
  };
}
