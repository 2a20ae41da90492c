// The atomic writer's temp file is its own: a symlink (or any file) planted where a temp file
// could be expected is never followed nor written through, for every durable file the exporter
// writes (alert state, status history).
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALERT_STATE_FILE, saveAlertState } from '../../src/alerting/notify/stateFile.js';
import { writeFileAtomically } from '../../src/files/atomicFile.js';
import { writeStatusFile } from '../../src/status/persist.js';

const root = mkdtempSync(path.join(tmpdir(), 'lfe-atomic-temp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file outside the state directory, and links to it at the temp names a writer could predict. */
function plant(dir: string, base: string): string {
  const victim = path.join(root, `victim-${base}`);
  writeFileSync(victim, 'precious\n');
  for (const pid of [process.pid, 1]) symlinkSync(victim, path.join(dir, `.${base}.${pid}.tmp`));
  return victim;
}

describe('atomic writes and symlinks at temp paths', () => {
  it('the alert state file is written beside the planted links, never through them', async () => {
    const dir = mkdtempSync(path.join(root, 'state-'));
    const victim = plant(dir, ALERT_STATE_FILE);
    await saveAlertState(dir, { instances: [], dispatcher: { log: {}, pushed: {} } }, Date.UTC(2026, 10, 28));
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(JSON.parse(readFileSync(path.join(dir, ALERT_STATE_FILE), 'utf8'))).toMatchObject({ version: 1 });
    expect(lstatSync(path.join(dir, ALERT_STATE_FILE)).isFile()).toBe(true);
  });

  it('the status history file too', async () => {
    const dir = mkdtempSync(path.join(root, 'status-'));
    const victim = plant(dir, 'status-history.json');
    await writeStatusFile(path.join(dir, 'status-history.json'), { nodes: [], events: [] }, Date.UTC(2026, 10, 28));
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(JSON.parse(readFileSync(path.join(dir, 'status-history.json'), 'utf8'))).toMatchObject({ nodes: [] });
  });

  it('a temp name already taken (a link, a file) is passed over; no temp file is left behind', async () => {
    const dir = mkdtempSync(path.join(root, 'taken-'));
    const target = path.join(dir, 'data.json');
    const victim = path.join(root, 'victim-taken');
    writeFileSync(victim, 'precious\n');
    const names = ['.data.json.taken-link.tmp', '.data.json.taken-file.tmp', '.data.json.free.tmp'];
    symlinkSync(victim, path.join(dir, names[0]!));
    writeFileSync(path.join(dir, names[1]!), 'someone else');
    let i = 0;
    await writeFileAtomically(target, ['{"ok":true}'], { tempName: () => names[i++]! });
    expect(i).toBe(3);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(path.join(dir, names[1]!), 'utf8')).toBe('someone else');
    expect(readFileSync(target, 'utf8')).toBe('{"ok":true}');
    expect(existsSync(path.join(dir, names[2]!))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([names[0], names[1], 'data.json'].sort());
  });

  it('removes temp files a crash left (older than 10 minutes), and nothing else', async () => {
    const dir = mkdtempSync(path.join(root, 'leftovers-'));
    const old = '.data.json.0123456789abcdef.tmp';
    const fresh = '.data.json.fedcba9876543210.tmp';
    const other = '.data.json.notours.tmp';
    for (const f of [old, fresh, other]) writeFileSync(path.join(dir, f), 'x');
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of [old, other]) utimesSync(path.join(dir, f), hourAgo, hourAgo);
    await writeFileAtomically(path.join(dir, 'data.json'), ['{}']);
    expect(readdirSync(dir).sort()).toEqual([fresh, other, 'data.json'].sort());
  });
});
