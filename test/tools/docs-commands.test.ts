// The commands the README and the docs pages (PAGES) show exist: every subcommand is one the CLI
// knows, and every flag shown appears in the built CLI's own help of that command.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS } from '../../src/cli/subcommands.js';
import { runCli } from '../support/exporterChild.js';

const PAGES = [
  'README.md',
  'docs/command-line.md',
  'docs/alerting.md',
  'docs/evidence.md',
  'docs/deployment.md',
  'docs/watch.md',
];
const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');

interface Shown {
  page: string;
  command: string;
  flags: string[];
}

/**
 * Every `ledger-fleet-exporter ...` invocation of the page, with its subcommand and flags (usage lines continue on
 * indented `[` lines).
 */
function shownCommands(page: string): Shown[] {
  const out: Shown[] = [];
  const lines = read(page).split('\n');
  lines.forEach((line, i) => {
    const at = line.indexOf('ledger-fleet-exporter ');
    if (at < 0 || /ledger-fleet-exporter-/.test(line.slice(at))) return;
    let text = line.slice(at + 'ledger-fleet-exporter '.length);
    for (let j = i + 1; j < lines.length && /^\s+\[/.test(lines[j]!); j++) text += ` ${lines[j]}`;
    const words: string[] = [];
    for (const w of text.split(/\s+/)) {
      if (w === '|' || w === '>' || w.startsWith('#') || w.startsWith('`') || w.startsWith('(')) break;
      words.push(w.replace(/^[[]+/, '').replace(/[`\]]+$/, ''));
    }
    const command = words[0] && (SUBCOMMANDS as readonly string[]).includes(words[0]) ? words[0] : '';
    const flags = words.filter((w) => w.startsWith('--')).map((w) => w.replace(/[=].*$/, ''));
    out.push({ page, command, flags });
  });
  return out;
}

describe('commands shown in the documentation', () => {
  const shown = PAGES.flatMap(shownCommands);

  it('finds the commands it checks', () => {
    expect(new Set(shown.map((s) => s.command))).toEqual(
      new Set(['', 'check-config', 'notify-test', 'alert-rules', 'demo', 'simulate', 'evidence', 'silence', 'ack']),
    );
    expect(shown.flatMap((s) => s.flags)).toEqual(
      expect.arrayContaining(['--config', '--receiver', '--node', '--listen', '--dir', '--duration', '--comment']),
    );
  });

  it('shows only flags the CLI lists in its help', async () => {
    const help = new Map<string, string>();
    for (const command of new Set(shown.map((s) => s.command))) {
      const r = await runCli(command ? [command, '--help'] : ['--help']);
      help.set(command, `${r.stdout}\n${r.stderr}`);
    }
    const top = help.get('') ?? '';
    expect(top).toContain('--config');
    const missing = shown.flatMap((s) =>
      s.flags
        .filter((f) => !(help.get(s.command) ?? '').includes(f) && !top.includes(f))
        .map((f) => `${s.page}: ${s.command || '(run)'} ${f}`),
    );
    expect(missing).toEqual([]);
    // Any flag these pages name anywhere (tables, prose) is one some command lists.
    const simulate = await runCli(['simulate', '--help']);
    const everyHelp = [...help.values(), simulate.stdout, simulate.stderr].join('\n');
    const named = ['README.md', 'docs/command-line.md'].flatMap((page) =>
      [...read(page).matchAll(/`(--[a-z][a-z.-]*)/g)].map((m) => `${page}: ${m[1]}`),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !everyHelp.includes(n.split(': ')[1]!))).toEqual([]);
  }, 60_000);
});
