// The fleet config in YAML, as a user writes it, for tests that run the CLI with the built-in
// alerting: the nodes polled fast, evidence and alert state under the test's directory, and only
// LedgerNodeDown enabled, so a node the test kills pages the receivers given.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { onlyRules } from './alertingDaemon.js';

export interface NodeDownYamlOptions {
  /** LedgerNodeDown's `for` (default 500ms). */
  for?: string;
  /** Keys added to the alerting section, or replacing its own (groupWait, repeatInterval, peers ...). */
  alerting?: Record<string, unknown>;
  /** Top-level keys added, or replacing the file's own (listen, evidence ...). */
  top?: Record<string, unknown>;
}

/**
 * Writes `dir`/fleet.yaml: `nodes` polled every 500 ms (timeout 400 ms) for health and blockNumber,
 * evidence and alert state under `dir`, only LedgerNodeDown (keepFiringFor 0s) evaluated every
 * 250 ms, grouped at once (groupWait 0s, groupInterval 1s) and sent to `receivers`. Returns its path.
 */
export function writeNodeDownYaml(
  dir: string,
  nodes: ReadonlyArray<{ name: string; url: string }>,
  network: string,
  receivers: unknown[],
  o: NodeDownYamlOptions = {},
): string {
  const file = path.join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '500ms', timeout: '400ms', probes: ['health', 'blockNumber'] },
      nodes: nodes.map((n) => ({ name: n.name, url: n.url, network })),
      evidence: { dir: path.join(dir, 'evidence') },
      ...o.top,
      alerting: {
        stateDir: 'state',
        evaluationInterval: '250ms',
        rules: { ...onlyRules({}), LedgerNodeDown: { for: o.for ?? '500ms', keepFiringFor: '0s' } },
        groupWait: '0s',
        groupInterval: '1s',
        receivers,
        ...o.alerting,
      },
    }),
  );
  return file;
}
