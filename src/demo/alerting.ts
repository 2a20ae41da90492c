// The demo's built-in alerting: the standard alerts, LedgerNodeDown after 10 s instead of 1 min and
// without its hold, and one receiver printing to the terminal. Written as the YAML section a user
// would write and read by the config parser, so it is validated and resolved like any config.
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseConfig } from '../config/index.js';
import type { ExporterConfig } from '../config/exporterConfig.js';

/** The `alerting:` section of the demo, for its state directory and receiver URL. */
export function demoAlertingSection(stateDir: string, receiverUrl: string): object {
  return {
    stateDir: join(stateDir, 'alerting'),
    evaluationInterval: '2s',
    groupBy: ['alertname', 'node'],
    groupWait: '0s',
    groupInterval: '2s',
    repeatInterval: '1h',
    rules: { LedgerNodeDown: { for: '10s', keepFiringFor: '0s' } },
    receivers: [{ name: 'demo-console', webhook: { url: receiverUrl } }],
  };
}

/** The demo's alerting settings, resolved by the config parser. */
export function demoAlerting(stateDir: string, receiverUrl: string): NonNullable<ExporterConfig['alerting']> {
  const text = stringify({
    nodes: [{ name: 'demo', url: 'http://127.0.0.1:9710' }],
    alerting: demoAlertingSection(stateDir, receiverUrl),
  });
  const parsed = parseConfig(text, { file: join(stateDir, 'demo.yaml'), env: {} });
  return parsed.alerting!;
}
