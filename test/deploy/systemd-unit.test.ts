// deploy/systemd/ledger-fleet-exporter.service: its hardening keys, and systemd's own verdict
// (`systemd-analyze verify` and the offline `security` score) where systemd-analyze exists.
// Without it the key checks still run; the systemd part says why it skipped.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH, requireBuiltCli } from '../support/cliProcess.js';
import { findExecutable } from '../support/prometheus-tools.js';

const run = promisify(execFile);
const UNIT_FILE = path.resolve(import.meta.dirname, '../..', 'deploy', 'systemd', 'ledger-fleet-exporter.service');
const unitText = readFileSync(UNIT_FILE, 'utf8');

/** section -> key -> values (a key may repeat), from the unit's INI-like syntax. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1]) {
      current = new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq <= 0) throw new Error(`unexpected line in unit file: ${line}`);
    const key = line.slice(0, eq);
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

const unit = parseUnit(unitText);
const service = unit.get('Service') ?? new Map<string, string[]>();
const value = (key: string): string | undefined => service.get(key)?.at(-1);

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

describe('systemd unit: keys', () => {
  it('has the three sections, a start command with --config and an install target', () => {
    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(value('ExecStart')).toMatch(
      /^\/\S+\/ledger-fleet-exporter --config \/etc\/ledger-fleet-exporter\/\S+\.yaml/,
    );
    expect(value('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(unit.get('Install')?.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it('runs unprivileged with a writable state directory only', () => {
    expect(value('DynamicUser')).toBe('yes');
    expect(value('StateDirectory')).toBe('ledger-fleet-exporter');
    expect(value('WorkingDirectory')).toBe('/var/lib/ledger-fleet-exporter');
    expect(value('ProtectSystem')).toBe('strict');
    expect(value('ProtectHome')).toBe('yes');
    expect(value('NoNewPrivileges')).toBe('yes');
    expect(value('CapabilityBoundingSet')).toBe('');
    expect(value('AmbientCapabilities')).toBe('');
  });

  it('sets the hardening options and a file-descriptor limit for many nodes', () => {
    for (const key of [
      'PrivateTmp',
      'PrivateDevices',
      'ProtectKernelTunables',
      'ProtectKernelModules',
      'ProtectKernelLogs',
      'ProtectControlGroups',
      'ProtectClock',
      'ProtectHostname',
      'RestrictNamespaces',
      'RestrictRealtime',
      'RestrictSUIDSGID',
      'LockPersonality',
    ]) {
      expect(value(key), key).toBe('yes');
    }
    expect(value('RestrictAddressFamilies')?.split(/\s+/).sort()).toEqual(['AF_INET', 'AF_INET6', 'AF_UNIX']);
    expect(value('SystemCallFilter')).toBe('@system-service');
    expect(Number(value('LimitNOFILE'))).toBeGreaterThanOrEqual(65536);
    // The JIT needs writable executable pages: this must never be switched on.
    expect(service.has('MemoryDenyWriteExecute')).toBe(false);
  });

  it('keeps keys out of the unit: they come from an optional root-only environment file', () => {
    expect(value('EnvironmentFile')).toBe('-/etc/ledger-fleet-exporter/environment');
    const environment = service.get('Environment') ?? [];
    expect(environment.length).toBeGreaterThan(0);
    for (const assignment of environment) expect(assignment).not.toMatch(/key|token|secret|password/i);
  });
});

const analyze = findExecutable('systemd-analyze');
const analyzeNote = analyze
  ? ''
  : ' [SKIPPED: systemd-analyze not found (Debian package systemd); the key checks above still ran]';
if (!analyze) console.warn("systemd-analyze not found: skipping systemd's own verification of the unit");

describe.skipIf(!analyze)(`systemd unit: systemd-analyze${analyzeNote}`, () => {
  /** The unit with ExecStart pointing at the built CLI, since verify checks the binary exists. */
  function unitForThisMachine(): string {
    requireBuiltCli();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lfe-unit-'));
    tmpDirs.push(dir);
    const file = path.join(dir, 'ledger-fleet-exporter.service');
    writeFileSync(file, unitText.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath} ${CLI_PATH}`));
    return file;
  }

  it('passes `systemd-analyze verify` with no warning', async () => {
    const file = unitForThisMachine();
    const { stdout, stderr } = await run(analyze as string, ['verify', file], { timeout: 20_000 });
    expect(`${stdout}${stderr}`.trim()).toBe('');
  });

  it('notices a misspelt key (so the check above can fail)', async () => {
    const file = unitForThisMachine();
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ProtectSystem=/m, 'ProtectSystm='));
    const { stderr } = await run(analyze as string, ['verify', file], { timeout: 20_000 });
    expect(stderr).toMatch(/Unknown key 'ProtectSystm'/);
  });

  it('scores as well hardened in `systemd-analyze security` (exposure below 2.5 of 10)', async () => {
    const file = unitForThisMachine();
    const { stdout } = await run(analyze as string, ['security', '--offline=true', '--no-pager', file], {
      timeout: 20_000,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const exposure = /Overall exposure level for .*: (\d+(?:\.\d+)?)/.exec(stdout)?.[1];
    expect(exposure, stdout.slice(-500)).toBeDefined();
    expect(Number(exposure)).toBeLessThan(2.5);
  });
});
