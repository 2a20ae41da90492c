// Dashboards as code: builds every dashboard and, when run as a script, writes them to
// grafana/dashboards/ (the folder the Grafana provisioning file points at).
//   npm run dashboards  (compiles tools/ to dist-tools/, then runs this file)
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { exporterHealth } from './exporter-health.js';
import { fleetOverview } from './fleet-overview.js';
import { nodeDetail } from './node-detail.js';
import { validatorsMining } from './validators-mining.js';
import { watchDashboard } from './watch.js';

/** File name -> dashboard builder. File names are stable: users and provisioning refer to them. */
const DASHBOARDS: Record<string, () => dashboard.Dashboard> = {
  'fleet-overview.json': fleetOverview,
  'node-detail.json': nodeDetail,
  'validators-mining.json': validatorsMining,
  'exporter-health.json': exporterHealth,
  'watch.json': watchDashboard,
};

/** File name -> JSON text (2-space indent, trailing newline): deterministic, so diffs stay honest. */
export function generateDashboards(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, build] of Object.entries(DASHBOARDS)) out[file] = `${JSON.stringify(build(), null, 2)}\n`;
  return out;
}

/** The repository's grafana/dashboards folder, from the source or the compiled tool alike. */
export function defaultDashboardsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'grafana', 'dashboards');
}

/** Writes the dashboards and removes stale generated files, so the folder mirrors the code. */
export function writeDashboards(dir: string = defaultDashboardsDir()): string[] {
  const files = generateDashboards();
  mkdirSync(dir, { recursive: true });
  for (const existing of readdirSync(dir)) {
    if (existing.endsWith('.json') && !(existing in files)) rmSync(path.join(dir, existing));
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return Object.keys(files).map((f) => path.join(dir, f));
}

function runAsScript(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (runAsScript()) {
  for (const file of writeDashboards(process.argv[2] ?? defaultDashboardsDir())) console.log(`wrote ${file}`);
}
