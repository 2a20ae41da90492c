// docs/simulator.md: the simulator's control API, from the table `simulate --help` prints.
import { CONTROL_ENDPOINTS } from '../../src/sim/control.js';
import { code, generatedNotice, table } from './markdown.js';

export function simulatorReferencePage(): string {
  return [
    generatedNotice('CONTROL_ENDPOINTS in src/sim/control.ts'),
    '',
    "# The simulator's control API",
    '',
    '`ledger-fleet-exporter simulate` (and `demo`) serve simulated nodes and, at the `control` URL they print on',
    'start, this API to change them while an exporter watches: kill and revive nodes, set faults, and change what',
    'the simulated chain says about what an operator owns (validators, miners, accounts, delegations, agents,',
    'tokens, services). Amounts are decimal strings of base units;',
    'addresses are the 64 hex characters `GET /networks` lists under each network. `simulate --help` prints the',
    'same list. How to watch the demo: [watch](watch.md).',
    '',
    table(
      ['method', 'path', 'body', 'what it does'],
      CONTROL_ENDPOINTS.map((e) => [e.method, code(e.path), e.body ? code(e.body) : '', e.what]),
    ),
    '',
    'For example, against the demo (`npm start` prints this address as "simulator API"):',
    '',
    '```sh',
    'curl -s http://127.0.0.1:9716/networks   # heights, the active set, addresses to watch',
    'curl -s -XPOST http://127.0.0.1:9716/nodes/<name>/kill',
    'curl -s -XPOST -H \'content-type: application/json\' -d \'{"fault":"hang"}\' \\',
    '  http://127.0.0.1:9716/nodes/<name>/fault',
    '```',
    '',
  ].join('\n');
}
