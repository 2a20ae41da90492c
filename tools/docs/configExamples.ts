// A short example per top-level config section for docs/configuration.md. Each one is checked
// by test/tools/docs.unit.test.ts to be a valid config (with EXAMPLE_NODES where it names no nodes), so an
// example cannot rot. A section without one here gets an outline drawn from the schema instead.

/** Added to an example that has no `nodes:` of its own, to make it a whole config. */
export const EXAMPLE_NODES = 'nodes:\n  - {name: val-eu-1, url: "http://10.0.0.5:9710", network: mainnet}\n';

export const SECTION_EXAMPLES: Readonly<Record<string, string>> = {
  listen: 'listen: 0.0.0.0:9715               # [::1]:9715 for IPv6\n',
  defaults: [
    'defaults:                          # every node inherits these; any may be set per node',
    '  interval: 15s',
    '  timeout: 5s',
    '  rpcNamespace: auto               # or chain, claw, clw, ...',
    '  probes: [health, metrics, blockNumber, miningStats, validators]',
    '  headers:',
    '    x-api-key: ${RPC_TOKEN}        # from the environment',
    '',
  ].join('\n'),
  polling: [
    'polling:',
    '  concurrency: 64',
    '  maxResponseBytes: 4MiB',
    '  maxUpstreamSeries: 2000',
    '  maxUpstreamBytes: 512KiB',
    '',
  ].join('\n'),
  networks: 'networks:\n  mainnet: {decimals: 9}\n  testnet: {decimals: 6}\n',
  nodes: [
    'nodes:',
    '  - name: val-eu-1                 # unique; the `node` label',
    '    url: http://10.0.0.5:9710',
    '    network: mainnet',
    '    labels: {region: eu, role: validator}',
    '  - name: rpc-public',
    '    url: https://rpc.example.org/ledger',
    '    interval: 30s',
    '    probes: [health, blockNumber]',
    '    headers:',
    '      authorization: {file: /run/secrets/rpc-auth}   # read at request time',
    '',
  ].join('\n'),
  evidence:
    'evidence:\n  dir: ./data/evidence             # relative to the config file\n  maxBytes: 256MiB\n  ' +
    'maxAgeDays: 30\n',
  agentPlatform: [
    'agentPlatform:',
    '  baseUrl: https://platform.example.org',
    '  apiKeyFile: /run/secrets/agent-key   # or apiKeyEnv: AGENT_API_KEY',
    '  interval: 5m',
    '',
  ].join('\n'),
  alerting: [
    'alerting:',
    '  rules:',
    '    LedgerNodeBehindFleet: {threshold: 40, for: 10m}',
    '  receivers:',
    '    - name: slack',
    '      slack: {webhookUrlFile: /run/secrets/slack-url}',
    '    - name: pager',
    '      pagerduty: {routingKeyFile: /run/secrets/pd-key}',
    '  routes:',
    '    - match: {severity: critical}',
    '      receivers: [pager, slack]',
    '    - receivers: [slack]',
    '  maintenance:',
    '    - {name: weekly-upgrade, schedule: "0 3 * * 0", timezone: Europe/Berlin, duration: 2h, match: {network: ' +
      'testnet}}',
    '  heartbeat:',
    '    url: https://hc-ping.example.org/3f2a',
    '',
  ].join('\n'),
  sharding: 'sharding: {shard: 0, totalShards: 3}   # or --shard 0 --total-shards 3\n',
  watch: [
    'watch:',
    '  interval: 30s',
    '  validators:',
    `    - {name: val-main, address: ${'3f'.repeat(32)}, network: mainnet, seatMarginBelow: 10%, commissionBps: 500}`,
    '  miners:',
    `    - {name: rig-01, address: ${'7c'.repeat(32)}, network: mainnet}`,
    '  accounts:',
    `    - {name: hot-wallet, address: ${'0a'.repeat(32)}, network: mainnet, minBalance: 25}`,
    '',
  ].join('\n'),
};
