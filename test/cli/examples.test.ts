// The shipped example configs, as a new user first tries them: each passes check-config as shipped,
// or fails only for variables it reads from the environment, with a line saying how to set them;
// set, it passes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLES = readdirSync(join(REPO, 'config'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `config/${f}`);

/** A value a variable of this name can take in an example (URLs must parse; an ntfy URL ends with its topic). */
const sample = (name: string) => (name.endsWith('_URL') ? 'https://example.org/example-topic' : 'example-value');

beforeAll(() => requireBuiltCli());

describe('check-config on the shipped examples', () => {
  it.each(EXAMPLES)('%s passes, or names its unset variables and how to set them', async (file) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LEDGER_|AGENT_|HOOK_)/.test(k)));
    const asShipped = await runCli(['check-config', file], { cwd: REPO, env });
    if (asShipped.code === 0) return expect(asShipped.stdout).toMatch(/OK \(\d+ nodes?/);
    const lines = asShipped.stdout.trim().split('\n');
    const unset = [...asShipped.stdout.matchAll(/environment variable "([^"]+)" is not set/g)].map((m) => m[1]!);
    expect(unset.length, asShipped.stdout).toBeGreaterThan(0);
    // Nothing but unset variables, the count, the hint naming each with the command to run, and how
    // to check everything else without them.
    expect(lines).toHaveLength(unset.length + 3);
    const hint = lines.at(-2)!;
    expect(hint).toContain(`ledger-fleet-exporter check-config ${file}`);
    expect(lines.at(-1)).toContain(`ledger-fleet-exporter check-config --no-secrets ${file}`);
    for (const name of unset) expect(hint).toContain(`${name}=...`);
    const set = await runCli(['check-config', file], {
      cwd: REPO,
      env: { ...env, ...Object.fromEntries(unset.map((n) => [n, sample(n)])) },
    });
    expect(set.code, set.stdout).toBe(0);
  });
});
