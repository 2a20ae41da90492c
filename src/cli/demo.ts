// `ledger-fleet-exporter demo`: the simulated fleet and the exporter polling it, kept running
// until Ctrl-C, then both stopped.
import { standardComponents } from '../daemon/features.js';
import { startDaemon } from '../daemon/index.js';
import { keepRunning } from '../daemon/run.js';
import { applyHeapPolicy } from '../heapPolicy.js';
import type { Secrets } from '../redact.js';
import type { Values } from './options.js';
import { listenArg, makeLogger, webOptions } from './runFlags.js';

export async function runDemo(values: Values, secrets: Secrets): Promise<number> {
  const log = makeLogger(values, secrets);
  applyHeapPolicy();
  const listen = listenArg(values) ?? { host: '127.0.0.1', port: 9715 };
  const { demoConfig, startDemoFleet } = await import('../demo.js');
  const fleet = await startDemoFleet();
  const config = demoConfig(fleet, { listen });
  const daemon = await startDaemon(config, { logger: log, secrets, components: standardComponents(log), ...(await webOptions(values)) });
  process.stdout.write(
    `\nledger-fleet-exporter demo: ${fleet.nodes.length} simulated nodes\n` +
      `  metrics:        ${daemon.url}/metrics\n` +
      `  status page:    ${daemon.url}/\n` +
      `  evidence:       ${daemon.url}/api/evidence?limit=20\n` +
      (fleet.controlUrl ? `  simulator API:  ${fleet.controlUrl}/nodes  (POST /nodes/<name>/fault {"fault":"hang"})\n` : '') +
      `Ctrl-C stops.\n\n`,
  );
  keepRunning(daemon, { log, alsoStop: [() => fleet.close()] });
  return -1;
}
