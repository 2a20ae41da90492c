// The exporter run (no subcommand): load the config, cut it to this shard, start the daemon with
// the standard components, and keep it running (reloads, clean stop).
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { unsetVariablesHint } from '../config/check.js';
import { loadConfigFile } from '../config/parse.js';
import { ConfigError, formatProblem } from '../config/problems.js';
import { standardComponents } from '../daemon/features.js';
import type { DaemonComponent } from '../daemon/component.js';
import { startDaemon } from '../daemon/index.js';
import { keepRunning } from '../daemon/run.js';
import { noteStartupSignals } from '../daemon/startupSignals.js';
import { applyHeapPolicy } from '../heapPolicy.js';
import type { Secrets } from '../redact.js';
import { ShardAssignment, ShardSpecError } from '../shard/index.js';
import { UsageError, type Values } from './options.js';
import { listenArg, makeLogger, webOptions } from './runFlags.js';

function shardAssignment(values: Values): ShardAssignment {
  const flags = {
    shard: values.shard as string | undefined,
    totalShards: values['total-shards'] as string | undefined,
    fromHostname: values['shard-from-hostname'] as boolean | undefined,
  };
  return new ShardAssignment(flags, hostname());
}

/** Returns -1 while the exporter runs (the process exits at its stop), else the exit code. */
export async function runExporter(values: Values, secrets: Secrets): Promise<number> {
  if (!values.config)
    throw new UsageError('--config <file.yaml> is required (or try the demo: ledger-fleet-exporter demo)');
  const log = makeLogger(values, secrets);
  noteStartupSignals({
    hup: () => log.info('SIGHUP during start-up: the reload runs once the exporter is ready'),
    stop: (signal, again) =>
      again
        ? log.warn({ signal }, 'second signal during start-up: exiting at once')
        : log.info({ signal }, 'stop requested during start-up: the exporter stops once it has started'),
    stuck: (ms) => log.error({ ms }, `start-up did not finish within ${ms / 1000} s of the stop request: exiting`),
  });
  const path = resolve(values.config as string);
  const sharding = shardAssignment(values);
  let config;
  try {
    config = sharding.apply(await loadConfigFile(path));
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`${formatProblem(p)}\n`);
      const hint = unsetVariablesHint(
        err.problems.map((p) => p.message),
        values.config as string,
        `--config ${values.config as string}`,
      );
      if (hint) process.stderr.write(`${hint}\n`);
      return 1;
    }
    if (err instanceof ShardSpecError) throw new UsageError(err.message);
    throw err;
  }
  applyHeapPolicy(process.execArgv, config.nodes.length);
  let daemon;
  try {
    daemon = await startDaemon(config, {
      logger: log,
      secrets,
      listen: listenArg(values),
      components: [...standardComponents(log, sharding), heapFitComponent],
      ...(await webOptions(values)),
    });
  } catch (err) {
    // The daemon stopped what it had started; the error ends the run (exit 1), never a half-started exporter.
    log.error({ err: secrets.scrub((err as Error).message) }, 'start-up failed: exiting');
    setTimeout(() => process.exit(1), START_FAILURE_EXIT_MS).unref();
    throw err;
  }
  keepRunning(daemon, { log, config: { path, scope: sharding } });
  return -1;
}

/** The young generation's cap follows the fleet's size across reloads (heapPolicy.ts). */
const heapFitComponent: DaemonComponent = {
  name: 'heap-fit',
  onReload: (diff) => void applyHeapPolicy(process.execArgv, diff.next.nodes.length),
};

/** After a failed start, anything still holding the process (a timer, a socket) is not waited for longer. */
const START_FAILURE_EXIT_MS = 5_000;
