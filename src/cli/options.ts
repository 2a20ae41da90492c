// Each command's flags, read with node:util parseArgs: every flag with its Prometheus-style
// aliases (--config.file, --web.listen-address, --log.level, --log.format), the config file also
// as the one positional argument where a command reads one, and an unknown flag answered with the
// nearest known one.
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface Flag {
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  /** Other spellings, e.g. Prometheus's --config.file for --config. */
  aliases?: string[];
  /** The value's placeholder in help, e.g. <file.yaml>. */
  value?: string;
  help: string;
}

export interface Command {
  name: string;
  summary: string;
  flags: Flag[];
  /** The flag a single positional argument stands for (`check-config fleet.yaml`). */
  positional?: string;
  /** Any number of positional arguments, shown in help as `<rest>...` (`silence expire <id>...`). */
  rest?: string;
}

export type Values = Record<string, string | boolean | undefined>;

/** Parses argv for `command`; aliases and the positional argument come back under the flag's name. */
export function parseCommand(command: Command, argv: string[]): Values {
  return parseCommandArgs(command, argv).values;
}

/** As parseCommand, with the positional arguments of a command that takes `rest`. */
export function parseCommandArgs(command: Command, argv: string[]): { values: Values; args: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const f of command.flags) {
    options[f.name] = { type: f.type, ...(f.short ? { short: f.short } : {}) };
    for (const a of f.aliases ?? []) options[a] = { type: f.type };
  }
  let parsed;
  try {
    const allowPositionals = command.positional !== undefined || command.rest !== undefined;
    parsed = parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(explain(command, err as Error & { code?: string }));
  }
  const values: Values = {};
  for (const f of command.flags) {
    const given = [f.name, ...(f.aliases ?? [])].filter((n) => parsed.values[n] !== undefined);
    const distinct = new Set(given.map((n) => parsed.values[n]));
    if (distinct.size > 1) throw new UsageError(`--${given.join(' and --')} are the same flag: give it once`);
    if (given.length > 0) values[f.name] = parsed.values[given[0]!];
  }
  if (command.rest !== undefined) return { values, args: parsed.positionals };
  if (parsed.positionals.length > 0) values[command.positional!] = positional(command, parsed.positionals, values);
  return { values, args: [] };
}

function positional(command: Command, positionals: string[], values: Values): string {
  const name = command.positional!;
  if (positionals.length > 1)
    throw new UsageError(
      `${command.name} takes one <${name}> argument, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  if (values[name] !== undefined && values[name] !== positionals[0])
    throw new UsageError(`give the ${name} file once: as an argument or as --${name}, not both`);
  return positionals[0]!;
}

/** parseArgs's error, with the nearest known flag for an unknown one. */
function explain(command: Command, err: Error & { code?: string }): string {
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return err.message.split('\n')[0]!;
  const unknown = /'(-{1,2}[^']+)'/.exec(err.message)?.[1] ?? '';
  const near = nearestFlag(command, unknown.replace(/^-+/, '').split('=')[0]!);
  const hint = near ? `; did you mean --${near}?` : '';
  const help = command.name === 'run' ? '--help' : `${command.name} --help`;
  return `unknown option ${unknown}${hint} (see: ledger-fleet-exporter ${help})`;
}

/** The known spelling closest to `word`, when it is close enough to be a typo or another style. */
export function nearestFlag(command: Command, word: string): string | undefined {
  const names = command.flags.flatMap((f) => [f.name, ...(f.aliases ?? [])]);
  const norm = (s: string) => s.toLowerCase().replace(/[._-]/g, '');
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = norm(name) === norm(word) ? 0 : editDistance(word.toLowerCase(), name);
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance (small strings: flag names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The command's help: usage line, summary, then each flag with its aliases. */
export function commandHelp(command: Command, program: string): string {
  const head = command.name === 'run' ? program : `${program} ${command.name}`;
  const pos = command.rest
    ? ` [flags] <${command.rest}>...`
    : command.positional
      ? ` [<${command.positional}.yaml>]`
      : '';
  const lines = [`Usage: ${head}${pos}${command.rest ? '' : ' [flags]'}`, '', command.summary, '', 'Flags:'];
  for (const f of command.flags) {
    const spell = [...(f.short ? [`-${f.short}`] : []), `--${f.name}`, ...(f.aliases ?? []).map((a) => `--${a}`)].join(
      ', ',
    );
    lines.push(`  ${spell}${f.value ? ` ${f.value}` : ''}`, `      ${f.help}`);
  }
  return `${lines.join('\n')}\n`;
}
