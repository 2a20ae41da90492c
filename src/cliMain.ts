// Command line: run the exporter, check a config, run the demo, the simulator, or read evidence.
// Each subcommand's own modules (simulator, demo, notify-test, alert rules, evidence reader) are
// imported when it runs, so a running exporter does not keep their code in memory.
import { watch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, formatProblem, loadConfigFile, parseListenAddress, runCheckConfig } from './config/index.js';
import { startDaemon, type Daemon, type DaemonOptions } from './daemon.js';
import { standardComponents } from './daemonParts.js';
import type { ListenAddress } from './domain.js';
import { applyHeapPolicy } from './heapPolicy.js';
import { createLogger, LOG_LEVELS, type Logger } from './logger.js';
import { alertsForShard, shardComponent, ShardAssignment, ShardSpecError } from './shard/index.js';
import { ALERT_DEFINITIONS } from './alerting/definitions/index.js';
import { Secrets } from './redact.js';
import { configReloader } from './reload.js';
import { noteStartupSignals, releaseStartupHup, releaseStartupStop } from './startupSignals.js';
import { isSubcommand, type Subcommand } from './subcommands.js';
import { VERSION } from './version.js';

const USAGE = `ledger-fleet-exporter ${VERSION}

Usage:
  ledger-fleet-exporter --config <file.yaml> [--listen <host:port>] [--log-level <level>] [--log-format json|pretty] [--web.config.file <web.yml>]
                        [--shard <i> --total-shards <n> | --shard-from-hostname --total-shards <n>]
  ledger-fleet-exporter check-config <file.yaml>
  ledger-fleet-exporter notify-test --config <file.yaml> [--receiver <name>] [--node <name>]
  ledger-fleet-exporter alert-rules --config <file.yaml>   (Prometheus rules with the config's alerting.rules)
  ledger-fleet-exporter demo [--listen <host:port>] [--log-level <level>]
  ledger-fleet-exporter simulate [options]      (see: simulate --help)
  ledger-fleet-exporter evidence [options]      (see: evidence --help)

Signals: SIGHUP reloads the config (so does a change of the file); SIGTERM/SIGINT stop cleanly.
`;

class UsageError extends Error {}

/** This process's secrets: the logger scrubs them, the daemon adds those of each accepted config. */
const secrets = new Secrets();

const RUN_OPTIONS = {
  config: { type: 'string', short: 'c' },
  listen: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'web.config.file': { type: 'string' },
  shard: { type: 'string' },
  'total-shards': { type: 'string' },
  'shard-from-hostname': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

function parseRunArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function makeLogger(values: { 'log-level'?: string; 'log-format'?: string }): Logger {
  const level = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const format = values['log-format'] ?? (process.stdout.isTTY ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new UsageError('--log-format must be json or pretty');
  return createLogger({ level: level as (typeof LOG_LEVELS)[number], pretty: format === 'pretty', secrets });
}

function listenArg(value: string | undefined): ListenAddress | undefined {
  if (value === undefined) return undefined;
  try {
    return parseListenAddress(value);
  } catch (err) {
    throw new UsageError(`--listen: ${(err as Error).message}`);
  }
}

/** Web config (basic auth, TLS) from --web.config.file, loaded lazily so plain runs need none of it. */
async function webOptions(path: string | undefined): Promise<Partial<DaemonOptions>> {
  if (!path) return {};
  const { loadWebConfig } = await import('./web/webConfig.js');
  // The web server applies basic auth and the configured headers to every path, as exporter-toolkit does.
  return { web: await loadWebConfig(path) };
}

/** Longest a clean shutdown may take (probes in flight get 5 s, then evidence is flushed). */
const SHUTDOWN_WATCHDOG_MS = 20_000;

/**
 * Stops cleanly on SIGTERM/SIGINT: no new probes, in-flight ones finish within a bound, evidence
 * flushed. A stop requested during start-up (held by the entry point) runs now.
 */
function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal means "now": the operator gave up waiting.
      log.warn({ signal }, 'second signal during shutdown: exiting at once');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    // A stalled disk must not hold the process forever.
    setTimeout(() => {
      log.error({ ms: SHUTDOWN_WATCHDOG_MS }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, SHUTDOWN_WATCHDOG_MS).unref();
    stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  // Released after the handlers above are in place, so no signal falls between the two.
  const early = releaseStartupStop();
  if (early) handler(early);
}

/**
 * Whether a change in the config directory may have changed the config: the file itself, or the
 * `..data` / `..<version>` entries of a Kubernetes ConfigMap swap. Anything else there (a log
 * file, an editor's swap file) is not read at all. An event without a name is checked.
 */
function concernsConfig(filename: string | Buffer | null, configPath: string): boolean {
  if (filename === null) return true;
  const name = filename.toString();
  return name === basename(configPath) || name.startsWith('..');
}

/** Reload on SIGHUP and on changes of the config file: validate first, keep the running config on error. */
function watchConfig(path: string, daemon: Daemon, log: Logger, sharding: ShardAssignment): FSWatcher | undefined {
  let timer: NodeJS.Timeout | undefined;
  // Any event in the directory may mean a new config: Kubernetes swaps a `..data` symlink and no
  // event names the file; the reloader skips events that changed nothing.
  const reload = configReloader(path, daemon, log, sharding);
  process.on('SIGHUP', () => void reload('SIGHUP'));
  // Released after the handler above is in place, so no SIGHUP falls between the two.
  if (releaseStartupHup()) void reload('SIGHUP');
  try {
    // Watch the directory: editors and ConfigMap updates replace the file rather than write it.
    const w = watch(dirname(path), (_event, filename) => {
      if (!concernsConfig(filename, path)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void reload('file changed'), 300);
    });
    w.unref();
    return w;
  } catch (err) {
    log.warn({ err }, 'cannot watch the config file; reload with SIGHUP');
    return undefined;
  }
}

function shardAssignment(values: { shard?: string; 'total-shards'?: string; 'shard-from-hostname'?: boolean }): ShardAssignment {
  return new ShardAssignment({ shard: values.shard, totalShards: values['total-shards'], fromHostname: values['shard-from-hostname'] }, hostname());
}

async function runExporter(argv: string[]): Promise<number> {
  const values = parseRunArgs(argv);
  if (values.help) return (process.stdout.write(USAGE), 0);
  if (values.version) return (process.stdout.write(`${VERSION}\n`), 0);
  if (!values.config) throw new UsageError('--config <file.yaml> is required (or use: demo)');
  const log = makeLogger(values);
  noteStartupSignals({
    hup: () => log.info('SIGHUP during start-up: the reload runs once the exporter is ready'),
    stop: (signal, again) =>
      again ? log.warn({ signal }, 'second signal during start-up: exiting at once') : log.info({ signal }, 'stop requested during start-up: the exporter stops once it has started'),
  });
  applyHeapPolicy();
  const path = resolve(values.config);
  const sharding = shardAssignment(values);
  let config;
  try {
    config = sharding.apply(await loadConfigFile(path));
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`${formatProblem(p)}\n`);
      return 1;
    }
    if (err instanceof ShardSpecError) throw new UsageError(err.message);
    throw err;
  }
  if (sharding.sharded()) {
    log.info(sharding.summary(), 'sharded: polling only the nodes of this shard');
    const left = alertsForShard(ALERT_DEFINITIONS, sharding.spec()).leftToPrometheus;
    if (config.alerting) log.info({ alerts: left }, 'sharded: the built-in engine evaluates node and exporter alerts for this shard; these network-wide alerts are left to the Prometheus rules (alerts/*.yml)');
  }
  const daemon = await startDaemon(config, {
    logger: log,
    secrets,
    listen: listenArg(values.listen),
    components: [...standardComponents(log, sharding), shardComponent(sharding)],
    ...(await webOptions(values['web.config.file'])),
  });
  const watcher = watchConfig(path, daemon, log, sharding);
  onShutdown(log, async () => {
    watcher?.close();
    await daemon.close();
  });
  return -1; // keep running
}

async function runDemo(argv: string[]): Promise<number> {
  const values = parseRunArgs(argv);
  if (values.help) return (process.stdout.write(USAGE), 0);
  const log = makeLogger(values);
  applyHeapPolicy();
  const listen = listenArg(values.listen) ?? { host: '127.0.0.1', port: 9715 };
  const { demoConfig, startDemoFleet } = await import('./demo.js');
  const fleet = await startDemoFleet();
  const config = demoConfig(fleet, { listen });
  const daemon = await startDaemon(config, { logger: log, secrets, components: standardComponents(log), ...(await webOptions(values['web.config.file'])) });
  process.stdout.write(
    `\nledger-fleet-exporter demo: ${fleet.nodes.length} simulated nodes\n` +
      `  metrics:        ${daemon.url}/metrics\n` +
      `  status page:    ${daemon.url}/\n` +
      `  evidence:       ${daemon.url}/api/evidence?limit=20\n` +
      (fleet.controlUrl ? `  simulator API:  ${fleet.controlUrl}/nodes  (POST /nodes/<name>/fault {"fault":"hang"})\n` : '') +
      `Ctrl-C stops.\n\n`,
  );
  onShutdown(log, async () => {
    await daemon.close();
    await fleet.close();
  });
  return -1;
}

/** A subcommand's bad arguments (parseArgs throws TypeErrors; ours say "usage:") exit 2 with the usage. */
async function withUsageErrors(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TypeError || /usage:/.test((err as Error).message)) throw new UsageError((err as Error).message);
    throw err;
  }
}

const RUNNERS: Record<Subcommand, (rest: string[]) => Promise<number>> = {
  'check-config': async (rest) => {
    if (rest.length !== 1 || rest[0]!.startsWith('-')) throw new UsageError('usage: ledger-fleet-exporter check-config <file.yaml>');
    return runCheckConfig(rest[0]!, (line) => process.stdout.write(`${line}\n`));
  },
  demo: (rest) => runDemo(rest),
  'notify-test': async (rest) => {
    const { runNotifyTest } = await import('./alerting/notifyTest.js');
    return withUsageErrors(() => runNotifyTest(rest, { secrets, write: (line) => process.stdout.write(`${line}\n`) }));
  },
  'alert-rules': async (rest) => {
    const { runAlertRulesCli } = await import('./alerting/rulesCli.js');
    return withUsageErrors(() => runAlertRulesCli(rest, { write: (text) => process.stdout.write(text), problem: (line) => process.stderr.write(`${line}\n`) }));
  },
  simulate: async (rest) => {
    const { runSimulatorCli } = await import('./sim/index.js');
    await runSimulatorCli(rest);
    return -1;
  },
  evidence: async (rest) => {
    const { runEvidenceCli } = await import('./evidence/cli.js');
    return runEvidenceCli(rest, (line) => process.stdout.write(`${line}\n`));
  },
  help: async () => (process.stdout.write(USAGE), 0),
};

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  return isSubcommand(first) ? RUNNERS[first](rest) : runExporter(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`error: ${secrets.scrub((err as Error).message ?? String(err))}\n`);
      process.exitCode = 1;
    }
  },
);
