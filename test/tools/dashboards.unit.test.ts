import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDashboards, writeDashboards } from '../../tools/dashboards/generate.js';
import { analyzePromql, dashboardExpressions, substituteGrafanaVariables } from '../../tools/dashboards/promql.js';

const DIR = path.resolve(import.meta.dirname, '../..', 'grafana', 'dashboards');

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id?: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: { type?: string; uid?: string };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query?: unknown;
  datasource?: { uid?: string };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

const generated = generateDashboards();
const dashboards: Array<[string, Dashboard]> = Object.entries(generated).map(([f, text]) => [
  f,
  JSON.parse(text) as Dashboard,
]);

function allPanels(d: Dashboard): Panel[] {
  const out: Panel[] = [];
  const walk = (ps: Panel[]): void => {
    for (const p of ps) {
      out.push(p);
      walk(p.panels ?? []);
    }
  };
  walk(d.panels);
  return out;
}

function metricsOf(d: Dashboard, file: string): Set<string> {
  const names = new Set<string>();
  for (const e of dashboardExpressions(d, file))
    for (const n of analyzePromql(substituteGrafanaVariables(e.expr)).metricNames) names.add(n);
  return names;
}

describe('generated dashboards', () => {
  it('regenerating yields exactly the committed files (else run `npm run dashboards`)', () => {
    const committed = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(committed).toEqual(Object.keys(generated).sort());
    for (const [file, text] of Object.entries(generated)) {
      expect(readFileSync(path.join(DIR, file), 'utf8'), file).toBe(text);
    }
  });

  it('generation is deterministic', () => {
    expect(generateDashboards()).toEqual(generated);
  });

  it('has the five dashboards with stable, unique uids', () => {
    const uids = Object.fromEntries(dashboards.map(([f, d]) => [f, d.uid]));
    expect(uids).toEqual({
      'fleet-overview.json': 'ledger-fleet-overview',
      'node-detail.json': 'ledger-node-detail',
      'validators-mining.json': 'ledger-validators-mining',
      'exporter-health.json': 'ledger-exporter-health',
      'watch.json': 'ledger-watch',
    });
  });

  for (const [file, d] of dashboards) {
    describe(file, () => {
      const panels = allPanels(d).filter((p) => p.type !== 'row');

      it('has panels, each with a unit, a description and unique ids', () => {
        expect(panels.length).toBeGreaterThan(5);
        const ids = allPanels(d).map((p) => p.id);
        expect(ids.every((id) => typeof id === 'number')).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        for (const p of panels) {
          expect(p.description?.trim(), `description of "${p.title}"`).toBeTruthy();
          expect(p.fieldConfig?.defaults?.unit?.trim(), `unit of "${p.title}"`).toBeTruthy();
        }
      });

      it('uses the ${datasource} variable on every panel and target, with explicit unique refIds', () => {
        expect(JSON.stringify(d)).not.toContain('__inputs');
        expect(JSON.stringify(d)).not.toMatch(/DS_[A-Z]/);
        for (const p of panels) {
          expect(p.datasource, `datasource of "${p.title}"`).toEqual({ type: 'prometheus', uid: '${datasource}' });
          const targets = p.targets ?? [];
          expect(targets.length, `targets of "${p.title}"`).toBeGreaterThan(0);
          for (const t of targets) {
            expect(t.datasource, `target ${t.refId} of "${p.title}"`).toEqual({
              type: 'prometheus',
              uid: '${datasource}',
            });
            expect(t.refId).toMatch(/^[A-Z]$/);
          }
          expect(new Set(targets.map((t) => t.refId)).size).toBe(targets.length);
        }
      });

      it('declares the datasource, network and node variables', () => {
        const vars = Object.fromEntries(d.templating.list.map((v) => [v.name, v]));
        expect(vars.datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
        expect(vars.network).toMatchObject({ type: 'query', datasource: { uid: '${datasource}' } });
        expect(String(vars.network?.query)).toMatch(/^label_values\(ledger_\w+, network\)$/);
        expect(vars.node).toMatchObject({ type: 'query', datasource: { uid: '${datasource}' } });
        expect(String(vars.node?.query)).toMatch(/^label_values\(ledger_\w+\{network=~"\$network"\}, node\)$/);
      });

      it('every expression parses and every range selector uses $__rate_interval', () => {
        const exprs = dashboardExpressions(d, file);
        expect(exprs.length).toBeGreaterThan(panels.length - 1);
        for (const e of exprs) {
          expect(analyzePromql(substituteGrafanaVariables(e.expr)).errors, `${e.where}: ${e.expr}`).toEqual([]);
          for (const m of e.expr.matchAll(/\[([^\]]*)\]/g))
            expect(m[1], `${e.where}: ${e.expr}`).toBe('$__rate_interval');
        }
      });
    });
  }

  it('covers what the issue asks of each dashboard', () => {
    const byFile = Object.fromEntries(dashboards.map(([f, d]) => [f, metricsOf(d, f)]));
    // Fleet-wide values come from the recording rules (alerts/ledger-fleet-exporter.recording.yml),
    // so the panels are right with one exporter or several shards.
    const want: Record<string, string[]> = {
      'fleet-overview.json': [
        'network:ledger_fleet_nodes_up:sum',
        'network:ledger_node_block_height:max',
        'network:ledger_node_block_height:min',
        'node:ledger_node_height_lag_blocks:fleet',
        'ledger_node_info',
        'network:ledger_fleet_versions:count',
        'ledger_probe_failures_total',
        'ledger_evidence_records_total',
      ],
      'node-detail.json': [
        'ledger_node_up',
        'ledger_node_healthy',
        'ledger_node_block_height',
        'ledger_node_peers',
        'ledger_probe_duration_seconds',
        'ledger_probe_failures_total',
        'ledger_upstream_blocks_total',
        'ledger_upstream_block_time_seconds_bucket',
      ],
      'validators-mining.json': [
        'network:ledger_validators_active:max',
        'ledger_validator_stake_tokens',
        'ledger_validator_weight',
        'ledger_validator_agent_score',
        'network:ledger_fleet_validator_set_mismatch:max',
        'network:ledger_mining_miners_active:max',
        'ledger_mining_block_reward_tokens',
        'network:ledger_mining_blocks_until_upgrade:min',
      ],
      'watch.json': [
        'ledger_watch_validator_active',
        'ledger_watch_validator_rewarded',
        'ledger_watch_validator_rank',
        'ledger_watch_validator_seat_margin_ratio',
        'ledger_watch_miner_consecutive_misses',
        'ledger_watch_miner_reward_multiplier',
        'ledger_watch_account_balance_tokens',
        'ledger_watch_account_unbonding_tokens',
        'ledger_watch_last_success_timestamp_seconds',
      ],
      'exporter-health.json': [
        'ledger_exporter_poll_overruns_total',
        'ledger_probe_duration_seconds',
        'ledger_evidence_records_total',
        'ledger_exporter_config_reloads_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_p99_seconds',
      ],
    };
    for (const [file, names] of Object.entries(want)) {
      for (const n of names) expect(byFile[file]?.has(n), `${file} uses ${n}`).toBe(true);
    }
  });
});

// Series every replica of a shard exposes for the same node or network (HA twins differ only in
// their scrape-target labels); the exporter's own series are per replica by design.
const PER_SUBJECT = /^ledger_(node|probe|upstream|validator|validators|mining|fleet)_|^ledger_evidence_records_total$/;
const DEDUPING = new Set(['max', 'min', 'avg']);

/**
 * Selectors of per-subject series that HA twins would double: the first aggregation above the
 * selector that drops `instance` must be max, min or avg (sum and count would add the twins).
 */
function twinUnsafeSelectors(expr: string): string[] {
  const out: string[] = [];
  parser.parse(expr).iterate({
    enter(ref) {
      if (ref.name !== 'VectorSelector') return;
      const ident = ref.node.getChild('Identifier');
      const name = ident ? expr.slice(ident.from, ident.to) : '';
      if (!PER_SUBJECT.test(name)) return;
      for (let up = ref.node.parent; up; up = up.parent) {
        if (up.name !== 'AggregateExpr') continue;
        const mod = up.getChild('AggregateModifier');
        const labels = mod ? expr.slice(mod.getChild('GroupingLabels')!.from, mod.to) : '';
        const without = mod?.getChild('Without') !== null && mod !== null;
        const dropsInstance = without ? /\binstance\b/.test(labels) : !/\binstance\b/.test(labels);
        if (!dropsInstance) continue;
        const op = expr.slice(up.getChild('AggregateOp')!.from, up.getChild('AggregateOp')!.to);
        if (DEDUPING.has(op)) return;
        break;
      }
      out.push(expr.slice(ref.from, ref.to));
    },
  });
  return out;
}

describe('dashboards with HA twins', () => {
  it('the rule itself: raw or summed per-node series are flagged, max by node is not', () => {
    expect(twinUnsafeSelectors('ledger_node_up{node="a"}')).toEqual(['ledger_node_up{node="a"}']);
    expect(twinUnsafeSelectors('sum by (network, node) (rate(ledger_probe_failures_total[5m]))')).toEqual([
      'ledger_probe_failures_total',
    ]);
    expect(twinUnsafeSelectors('sum by (instance) (ledger_node_up)')).toEqual(['ledger_node_up']);
    expect(
      twinUnsafeSelectors('sum by (reason) (max by (network, node, reason) (rate(ledger_probe_failures_total[5m])))'),
    ).toEqual([]);
    expect(twinUnsafeSelectors('max without (instance, job) (ledger_node_info)')).toEqual([]);
    expect(twinUnsafeSelectors('max without (job) (ledger_node_info)')).toEqual(['ledger_node_info']);
    expect(twinUnsafeSelectors('network:ledger_fleet_nodes:count + ledger_exporter_build_info')).toEqual([]);
  });

  // exporter-health shows each replica on purpose (its CPU, memory, the requests it made).
  for (const [file, d] of dashboards.filter(([f]) => f !== 'exporter-health.json')) {
    it(`${file}: every panel shows a node or network once, however many replicas expose it`, () => {
      const exprs = dashboardExpressions(d, file).filter((e) => !e.where.startsWith('variable'));
      const unsafe = exprs.flatMap((e) =>
        twinUnsafeSelectors(substituteGrafanaVariables(e.expr)).map((sel) => `${e.where}: ${sel}`),
      );
      expect(unsafe).toEqual([]);
    });
  }
});

describe('writeDashboards', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dashboards-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes every dashboard and removes stale generated files only', () => {
    writeFileSync(path.join(tmp, 'old-dashboard.json'), '{}');
    writeFileSync(path.join(tmp, 'notes.txt'), 'kept');
    const written = writeDashboards(tmp);
    expect(written.map((f) => path.basename(f)).sort()).toEqual(Object.keys(generated).sort());
    expect(existsSync(path.join(tmp, 'old-dashboard.json'))).toBe(false);
    expect(readFileSync(path.join(tmp, 'notes.txt'), 'utf8')).toBe('kept');
    for (const [file, text] of Object.entries(generated)) expect(readFileSync(path.join(tmp, file), 'utf8')).toBe(text);
  });
});
