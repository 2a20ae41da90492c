// Locates the Debian Prometheus tools (promtool, prometheus, prometheus-alertmanager) for tests.
// Team rule: a test that needs them skips with a clear message when they are missing, but FAILS
// when REQUIRE_PROMETHEUS=1 (CI installs them with apt, so missing there is a broken setup).
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export const REQUIRE_PROMETHEUS = process.env.REQUIRE_PROMETHEUS === '1';

/** The first executable of that name on PATH or in /usr/bin, or undefined. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* try the next directory */
    }
  }
  return undefined;
}

export interface ToolCheck {
  /** Resolved paths, by the name asked for. */
  paths: Record<string, string>;
  missing: string[];
  /** True when the tests must be skipped (tools missing and not required). */
  skip: boolean;
  /** Suffix for test names, so a skip says why in the vitest output. */
  skipNote: string;
}

/** Looks up every tool; `skip` only when some are missing and REQUIRE_PROMETHEUS is not set. */
export function checkTools(names: string[]): ToolCheck {
  const paths: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of names) {
    const found = findExecutable(name);
    if (found) paths[name] = found;
    else missing.push(name);
  }
  const skip = missing.length > 0 && !REQUIRE_PROMETHEUS;
  const skipNote = skip
    ? ` [SKIPPED: ${missing.join(', ')} not found; install Debian packages prometheus and prometheus-alertmanager, ` +
      `or set REQUIRE_PROMETHEUS=1 to make this a failure]`
    : '';
  if (skip) console.warn(`prometheus tools missing (${missing.join(', ')}): skipping the tests that need them`);
  return { paths, missing, skip, skipNote };
}

/** The tool's path; throws (failing the test) when it is missing, e.g. under REQUIRE_PROMETHEUS=1. */
export function requireTool(check: ToolCheck, name: string): string {
  const found = check.paths[name];
  if (!found) throw new Error(`${name} is required (REQUIRE_PROMETHEUS=1) but was not found on PATH or in /usr/bin`);
  return found;
}
