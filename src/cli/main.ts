// Command line: run the exporter, check a config, run the demo, the simulator, or read evidence.
// Each subcommand's own modules (simulator, demo, notify-test, alert rules, evidence reader) are
// imported when it runs, so a running exporter does not keep their code in memory.
import { Secrets } from '../redact.js';
import { versionText } from '../version.js';
import { ALERT_RULES, CHECK_CONFIG, DEMO, NOTIFY_TEST, RUN } from './commands.js';
import { commandHelp, editDistance, parseCommand, UsageError, type Command, type Values } from './options.js';
import { isSubcommand, SUBCOMMANDS, type Subcommand } from './subcommands.js';

const PROGRAM = 'ledger-fleet-exporter';

const USAGE = `${PROGRAM} — Prometheus exporter and alerting daemon for fleets of ledger nodes

Usage:
  ${PROGRAM} --config <file.yaml> [flags]      run the exporter
  ${PROGRAM} check-config <file.yaml>          validate a config
  ${PROGRAM} notify-test <file.yaml> [--receiver <name>] [--node <name>]
  ${PROGRAM} alert-rules <file.yaml>           Prometheus rules (recording + alerting) for this config
  ${PROGRAM} demo [--listen <host:port>]       a simulated fleet and the exporter polling it
  ${PROGRAM} simulate [flags]                  simulated nodes only
  ${PROGRAM} evidence [flags]                  read the evidence store
  ${PROGRAM} silence add|query|expire [flags]  silences of a running exporter (--url)
  ${PROGRAM} ack <fingerprint> [--comment ...] acknowledge one firing alert
  ${PROGRAM} --version

Each command answers --help with its flags. Signals: SIGHUP reloads the config (so does a change
of the file); SIGTERM/SIGINT stop cleanly.
`;

/** This process's secrets: the logger scrubs them, the daemon adds those of each accepted config. */
const secrets = new Secrets();

const write = (line: string) => process.stdout.write(`${line}\n`);
const problem = (line: string) => process.stderr.write(`${line}\n`);

/** Parses argv for `command`; answers --help itself (returns undefined then). */
function parse(command: Command, argv: string[]): Values | undefined {
  const values = parseCommand(command, argv);
  if (values.help) {
    process.stdout.write(command === RUN ? `${USAGE}\n${commandHelp(RUN, PROGRAM)}` : commandHelp(command, PROGRAM));
    return undefined;
  }
  return values;
}

/** The canonical arguments for a subcommand that parses its own (aliases and the positional config resolved). */
function canonical(values: Values): string[] {
  return Object.entries(values).flatMap(([k, v]) =>
    v === undefined || v === false ? [] : v === true ? [`--${k}`] : [`--${k}`, v],
  );
}

/** A subcommand's own bad arguments (its parseArgs's TypeErrors; ours say "usage:") exit 2 with the usage. */
async function withUsageErrors(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TypeError || /usage:/.test((err as Error).message)) throw new UsageError((err as Error).message);
    throw err;
  }
}

function needConfig(command: Command, values: Values): string {
  if (typeof values.config !== 'string')
    throw new UsageError(`usage: ${PROGRAM} ${command.name} <file.yaml>  (or --config <file.yaml>; see --help)`);
  return values.config;
}

const RUNNERS: Record<Subcommand, (rest: string[]) => Promise<number>> = {
  'check-config': async (rest) => {
    const values = parse(CHECK_CONFIG, rest);
    if (!values) return 0;
    const path = needConfig(CHECK_CONFIG, values);
    const { runCheckConfig } = await import('../config/check.js');
    return runCheckConfig(path, write, undefined, { noSecrets: values['no-secrets'] === true });
  },
  demo: async (rest) => {
    const values = parse(DEMO, rest);
    if (!values) return 0;
    const { runDemo } = await import('./demo.js');
    return runDemo(values, secrets);
  },
  'notify-test': async (rest) => {
    const values = parse(NOTIFY_TEST, rest);
    if (!values) return 0;
    needConfig(NOTIFY_TEST, values);
    const { runNotifyTest } = await import('./notifyTest.js');
    return withUsageErrors(() => runNotifyTest(canonical(values), { secrets, write }));
  },
  'alert-rules': async (rest) => {
    const values = parse(ALERT_RULES, rest);
    if (!values) return 0;
    needConfig(ALERT_RULES, values);
    const { runAlertRulesCli } = await import('./alertRules.js');
    const out = {
      write: (text: string) => process.stdout.write(text),
      problem: (line: string) => process.stderr.write(`${line}\n`),
      note: (line: string) => process.stderr.write(`${line}\n`),
    };
    return withUsageErrors(() => runAlertRulesCli(canonical(values), out));
  },
  simulate: async (rest) => {
    const { runSimulatorCli } = await import('../sim/index.js');
    await runSimulatorCli(rest);
    return -1;
  },
  evidence: async (rest) => {
    const { runEvidenceCli } = await import('../evidence/cli.js');
    return runEvidenceCli(rest, write);
  },
  silence: async (rest) => (await import('./silenceCli.js')).runSilenceCli(rest, { secrets, write, problem }),
  ack: async (rest) => (await import('./silenceCli.js')).runAckCli(rest, { secrets, write, problem }),
  help: async () => (process.stdout.write(USAGE), 0),
};

async function runCommand(argv: string[]): Promise<number> {
  const word = argv[0];
  const near = word && !word.startsWith('-') ? SUBCOMMANDS.find((c) => editDistance(c, word) <= 2) : undefined;
  if (near) throw new UsageError(`unknown command "${word}"; did you mean "${near}"? (see: ${PROGRAM} help)`);
  const values = parse(RUN, argv);
  if (!values) return 0;
  if (values.version) return (process.stdout.write(versionText(PROGRAM)), 0);
  const { runExporter } = await import('./exporter.js');
  return runExporter(values, secrets);
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  return isSubcommand(first) ? RUNNERS[first](rest) : runCommand(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`error: ${secrets.scrub((err as Error).message ?? String(err))}\n`);
      process.exitCode = 1;
    }
  },
);
