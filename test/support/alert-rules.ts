// Reading our Prometheus rule file and promtool test files as data, for the structural tests
// and for the end-to-end test's shortened copy of the rules.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ALERTS_DIR = path.join(REPO_ROOT, 'alerts');
export const RULES_FILE = path.join(ALERTS_DIR, 'ledger-fleet-exporter.rules.yml');
export const RECORDING_FILE = path.join(ALERTS_DIR, 'ledger-fleet-exporter.recording.yml');
export const RUNBOOKS_FILE = path.join(ALERTS_DIR, 'RUNBOOKS.md');
export const PROMTOOL_TESTS_DIR = path.join(ALERTS_DIR, 'tests');
// The rules file links runbooks by their path in this repository (the generator's default).
export { DEFAULT_RUNBOOK_BASE as RUNBOOK_BASE } from '../../src/alerting/rules/definitions/index.js';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  keep_firing_for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
  [key: string]: unknown;
}

export interface RuleFile {
  groups: RuleGroup[];
}

export function loadRuleFile(file = RULES_FILE): RuleFile {
  const doc = parse(readFileSync(file, 'utf8')) as RuleFile;
  if (!doc || !Array.isArray(doc.groups)) throw new Error(`${file}: no groups`);
  return doc;
}

export function allAlerts(doc: RuleFile): AlertRule[] {
  return doc.groups.flatMap((g) => g.rules.filter((r) => typeof r.alert === 'string'));
}

export interface PromtoolCase {
  eval_time: string;
  alertname: string;
  exp_alerts?: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
}

export interface PromtoolTestGroup {
  name?: string;
  interval?: string;
  input_series?: { series: string; values: string }[];
  alert_rule_test?: PromtoolCase[];
}

export interface PromtoolTestFile {
  path: string;
  rule_files?: string[];
  evaluation_interval?: string;
  tests?: PromtoolTestGroup[];
}

export function promtoolTestFiles(dir = PROMTOOL_TESTS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
}

export function loadPromtoolTests(dir = PROMTOOL_TESTS_DIR): PromtoolTestFile[] {
  return promtoolTestFiles(dir).map((file) => ({ ...(parse(readFileSync(file, 'utf8')) as object), path: file }));
}

/** GitHub's anchor for a Markdown heading: lowercase, punctuation dropped, spaces to hyphens. */
export function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Heading anchors of a Markdown document, with GitHub's -1, -2 suffixes for repeats. */
export function markdownAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const base = githubAnchor(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.push(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Markdown text under each level-2 heading, by heading text. */
export function markdownSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^##\s+(.*?)\s*$/.exec(line);
    if (m?.[1]) {
      current = m[1];
      sections.set(current, '');
    } else if (current !== undefined) {
      sections.set(current, `${sections.get(current) ?? ''}${line}\n`);
    }
  }
  return sections;
}

export interface PromqlInfo {
  errors: string[];
  metrics: string[];
}

/** Parses a PromQL expression; reports syntax errors and the metric names it selects. */
export function inspectPromql(expr: string): PromqlInfo {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const metrics = new Set<string>();
  tree.iterate({
    enter(node) {
      if (node.type.isError)
        errors.push(`syntax error at offset ${node.from}: ${JSON.stringify(expr.slice(node.from, node.from + 20))}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        metrics.add(expr.slice(node.from, node.to));
      if (node.name === 'UnquotedLabelMatcher') {
        const m = /^__name__\s*=\s*"([^"]*)"$/.exec(expr.slice(node.from, node.to));
        if (m?.[1]) metrics.add(m[1]);
      }
    },
  });
  return { errors, metrics: [...metrics].sort() };
}

/**
 * A copy of the rule file with every `for` and `keep_firing_for` replaced, for end-to-end runs
 * that cannot wait minutes. Expressions, labels and annotations stay as they are.
 */
export function shortenedRules(doc: RuleFile, durations: { for: string; keepFiringFor: string }): string {
  const copy = structuredClone(doc);
  for (const group of copy.groups) {
    for (const rule of group.rules) {
      if (rule.for !== undefined) rule.for = durations.for;
      if (rule.keep_firing_for !== undefined) rule.keep_firing_for = durations.keepFiringFor;
    }
  }
  return stringify(copy);
}
