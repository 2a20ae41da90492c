// `ledger-fleet-exporter simulate`: runs a simulated fleet until SIGTERM/SIGINT and prints
// one JSON line per node, then the control URL, then {"event":"ready"}.
import { nearestFlag, parseCommandArgs, UsageError, type Command } from '../cli/options.js';
import { controlEndpointsHelp } from './control.js';
import { SimFleet } from './fleet.js';
import { mixedFleetSpecs } from './specs.js';

export const SIMULATE_USAGE = `Usage: ledger-fleet-exporter simulate [options]
  --nodes <n>            number of nodes (default 5)
  --networks <a,b,...>   network names, nodes spread round-robin (default simnet)
  --layout <l>           port-per-node | shared-port (default port-per-node)
  --host <ip>            listen address (default 127.0.0.1)
  --port <p>             shared-port layout: the port (default 0 = any free port)
  --control-port <p>     serve the control API on this port (0 = any free port)
  --block-time-ms <ms>   block time (default 3000)
  --epoch-blocks <n>     blocks per epoch (default 100, as real nodes)
  --flap-period-ms <ms>  period of the flapping fault (default 6000)
  --keep-alive-ms <ms>   idle keep-alive of the nodes' servers (default Node's 5000; 0: never
                         closed idle and no Keep-Alive header, as hyper in the real nodes)
  --faults               give the last few nodes one fault each

Control API (at the "control" URL printed on start; amounts are decimal strings of base units):
${controlEndpointsHelp()}`;

const str = (name: string): Command['flags'][number] => ({ name, type: 'string', help: '' });
/** The simulator's flags, for parsing and for "did you mean" (help is SIMULATE_USAGE). */
const SIMULATE: Command = {
  name: 'simulate',
  summary: 'simulated nodes only',
  flags: [
    ...['nodes', 'networks', 'layout', 'host', 'port', 'control-port'].map(str),
    ...['block-time-ms', 'epoch-blocks', 'flap-period-ms', 'keep-alive-ms'].map(str),
    { name: 'faults', type: 'boolean', help: '' },
    { name: 'help', type: 'boolean', short: 'h', help: '' },
  ],
  // Positionals are taken so that a stray word is answered with the nearest flag.
  rest: 'none',
};

export interface SimulatorCliIo {
  stdout?: NodeJS.WritableStream;
  /** Stops the fleet like SIGTERM (for tests and for embedding). */
  signal?: AbortSignal;
}

function intOption(values: Record<string, unknown>, key: string, min: number): number | undefined {
  const raw = values[key];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(
      `--${key} must be an integer >= ${min}, got ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`,
    );
  return n;
}

export async function runSimulatorCli(argv: string[], io: SimulatorCliIo = {}): Promise<void> {
  const out = io.stdout ?? process.stdout;
  const { values, args } = parseCommandArgs(SIMULATE, argv);
  if (args.length > 0) {
    const near = nearestFlag(SIMULATE, args[0]!.replace(/^-+/, ''));
    throw new UsageError(
      `simulate takes no command, got "${args[0]}"${near ? `; did you mean --${near}?` : ''} ` +
        `(see: ledger-fleet-exporter simulate --help)`,
    );
  }
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined);
  if (values.help) {
    out.write(SIMULATE_USAGE);
    return;
  }
  const layout = text('layout') ?? 'port-per-node';
  if (layout !== 'port-per-node' && layout !== 'shared-port')
    throw new Error(`--layout must be port-per-node or shared-port, got ${layout}`);
  const count = intOption(values, 'nodes', 1) ?? 5;
  const specs = mixedFleetSpecs(count, {
    networks: text('networks')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    faults: values.faults === true,
  });
  const fleet = await SimFleet.start(specs, {
    layout,
    host: text('host') ?? '127.0.0.1',
    port: intOption(values, 'port', 0),
    controlPort: intOption(values, 'control-port', 0),
    blockTimeMs: intOption(values, 'block-time-ms', 1),
    epochBlocks: intOption(values, 'epoch-blocks', 1),
    flapPeriodMs: intOption(values, 'flap-period-ms', 2),
    keepAliveTimeoutMs: intOption(values, 'keep-alive-ms', 0),
  });
  const write = (o: Record<string, unknown>) => out.write(`${JSON.stringify(o)}\n`);
  for (const n of fleet.nodes) {
    write({
      event: 'node',
      name: n.name,
      network: n.network,
      url: n.url,
      build: n.build,
      namespace: n.namespace,
      fault: n.fault(),
    });
  }
  if (fleet.controlUrl) write({ event: 'control', url: fleet.controlUrl });
  write({ event: 'ready', nodes: fleet.nodes.length, layout });

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop, { once: true });
  });
  await fleet.close();
  write({ event: 'stopped' });
}
