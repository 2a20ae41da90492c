// `ledger-fleet-exporter demo`: the simulated fleet, a receiver printing notifications, and the
// exporter polling the fleet with its built-in alerting, kept running until Ctrl-C (or until the
// process that started it goes away), then all stopped. A start that fails (the port is taken)
// stops what it had started and exits non-zero.
import { join } from 'node:path';
import { parseListenAddress } from '../config/index.js';
import { standardComponents } from '../daemon/features.js';
import { startDaemon, type Daemon } from '../daemon/index.js';
import { keepRunning, stopWithParent } from '../daemon/run.js';
import { demoAlerting } from '../demo/alerting.js';
import { startConsoleReceiver } from '../demo/consoleReceiver.js';
import { DEMO_WATCH_NETWORK, demoConfig, startDemoFleet } from '../demo/fleet.js';
import { minerOutageScenario } from '../sim/index.js';
import { demoStateDir, type DemoState } from '../demo/stateDir.js';
import type { ListenAddress } from '../domain.js';
import { applyHeapPolicy } from '../heapPolicy.js';
import type { Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import type { SimFleet } from '../sim/index.js';
import { UsageError, type Values } from './options.js';
import { listenArg, makeLogger, webOptions } from './runFlags.js';

export const DEMO_LISTEN = '127.0.0.1:9715';
export const DEMO_SIMULATOR_LISTEN = '127.0.0.1:9716';
/** rpc-flaky answers for 20 s, then fails for 20 s: LedgerNodeDown (10 s) fires and resolves each round. */
const DEMO_FLAP_PERIOD_MS = 40_000;

interface Running {
  fleet: SimFleet;
  daemon: Daemon;
  state: DemoState;
  stops: Array<() => Promise<void>>;
}

export async function runDemo(values: Values, secrets: Secrets): Promise<number> {
  const log = makeLogger(values, secrets);
  applyHeapPolicy();
  const listen = listenArg(values) ?? parseListenAddress(DEMO_LISTEN);
  const simulator = simulatorListen(values);
  const run = await start(values, secrets, log, listen, simulator);
  process.stdout.write(banner(run, listen));
  // The daemon first (its last notifications reach the receiver), then the receiver, the fleet, the state.
  const stop = keepRunning(run.daemon, { log, alsoStop: run.stops });
  stopWithParent(stop);
  return -1;
}

function simulatorListen(values: Values): ListenAddress {
  const value = (values['simulator-listen'] as string | undefined) ?? DEMO_SIMULATOR_LISTEN;
  try {
    return parseListenAddress(value);
  } catch (err) {
    throw new UsageError(`--simulator-listen: ${(err as Error).message}`);
  }
}

/** Starts fleet, receiver and daemon; when one fails, stops those started and says what to do. */
async function start(
  values: Values,
  secrets: Secrets,
  log: Logger,
  listen: ListenAddress,
  simulator: ListenAddress,
): Promise<Running> {
  const state = await demoStateDir(values['state-dir'] as string | undefined);
  const stops: Array<() => Promise<void>> = [];
  try {
    const fleet = await inUse(
      startDemoFleet({ controlHost: simulator.host, controlPort: simulator.port, flapPeriodMs: DEMO_FLAP_PERIOD_MS }),
      simulator,
      '--simulator-listen',
    );
    stops.push(() => fleet.close());
    // The watched miner stops checking in after a minute and comes back after six.
    const outage = minerOutageScenario(fleet, DEMO_WATCH_NETWORK, { stopAfterMs: 60_000, resumeAfterMs: 6 * 60_000 });
    stops.push(async () => outage.cancel());
    const receiver = await startConsoleReceiver((block) => process.stdout.write(`${block}\n`));
    stops.unshift(() => receiver.close());
    const config = {
      ...demoConfig(fleet, { listen, evidenceDir: join(state.dir, 'evidence') }),
      alerting: demoAlerting(state.dir, receiver.url),
    };
    const daemon = await inUse(
      startDaemon(config, { logger: log, secrets, components: standardComponents(log), ...(await webOptions(values)) }),
      listen,
      '--listen',
    );
    return { fleet, daemon, state, stops: [...stops, () => state.release()] };
  } catch (err) {
    for (const stop of stops) await stop();
    await state.release();
    throw err;
  }
}

/** A taken port, said as what to do about it. */
async function inUse<T>(starting: Promise<T>, at: ListenAddress, flag: string): Promise<T> {
  try {
    return await starting;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new Error(
      `${at.host}:${at.port} is already in use (another demo or exporter?): stop it, or choose another address ` +
        `with ${flag} <host:port>`,
    );
  }
}

/** The URL to open for a server listening on `host` (all interfaces: this machine's loopback). */
export function openableUrl(host: string, port: number): string {
  const h =
    host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

function banner(run: Running, listen: ListenAddress): string {
  const url = run.daemon.url;
  const control = run.fleet.controlUrl && new URL(run.fleet.controlUrl);
  const everywhere =
    listen.host === '0.0.0.0' || listen.host === '::'
      ? `  listening on:   ${listen.host}:${listen.port} (all interfaces)\n`
      : '';
  return (
    `\nledger-fleet-exporter demo: ${run.fleet.nodes.length} simulated nodes, built-in alerting printing here\n` +
    everywhere +
    `  status page:    ${url}/\n` +
    `  metrics:        ${url}/metrics\n` +
    `  alerts:         ${url}/api/alerts\n` +
    `  evidence:       ${url}/api/evidence?limit=20\n` +
    (control
      ? `  simulator API:  ${openableUrl(control.hostname, Number(control.port))}/nodes  (POST /nodes/<name>/fault ` +
        `{"fault":"hang"})\n`
      : '') +
    `  state:          ${run.state.note}\n` +
    `rpc-flaky fails for ${DEMO_FLAP_PERIOD_MS / 2_000} s of every ${DEMO_FLAP_PERIOD_MS / 1_000} s: ` +
    `LedgerNodeDown fires for it ` +
    `after 10 s and resolves when it answers again; test-proxy stays down.\n` +
    `The watched miner rig-01 stops checking in after 1 min (epochs are 1 min): LedgerMinerCheckinMissed fires, ` +
    `then it checks in again after 6 min and LedgerMinerRewardReduced follows while its attendance recovers.\n` +
    `Ctrl-C stops.\n\n`
  );
}
