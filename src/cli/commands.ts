// The commands and their flags: one table, read by the parser and by --help.
import { LOG_LEVELS } from '../logger.js';
import type { Command, Flag } from './options.js';

const HELP: Flag = { name: 'help', short: 'h', type: 'boolean', help: 'Show this help and exit.' };
const CONFIG: Flag = {
  name: 'config',
  short: 'c',
  type: 'string',
  aliases: ['config.file'],
  value: '<file.yaml>',
  help: 'The fleet configuration file.',
};
const LISTEN: Flag = {
  name: 'listen',
  type: 'string',
  aliases: ['web.listen-address'],
  value: '<host:port>',
  help: "Address to serve /metrics and the status page on (overrides the config's listen).",
};
const LOG_LEVEL: Flag = {
  name: 'log-level',
  type: 'string',
  aliases: ['log.level'],
  value: '<level>',
  help: `Log level: ${LOG_LEVELS.join(', ')} (default info).`,
};
const LOG_FORMAT: Flag = {
  name: 'log-format',
  type: 'string',
  aliases: ['log.format'],
  value: 'json|pretty',
  help: 'json (for log shippers) or pretty (colours only on a terminal). Default: pretty on a terminal, else json.',
};
const WEB_CONFIG: Flag = {
  name: 'web.config.file',
  type: 'string',
  value: '<web.yml>',
  help: 'TLS and basic auth for the server, in the exporter-toolkit format.',
};

export const RUN: Command = {
  name: 'run',
  summary: 'Polls the fleet of the config and serves /metrics, the status page and the built-in alerting.',
  flags: [
    CONFIG,
    LISTEN,
    LOG_LEVEL,
    LOG_FORMAT,
    WEB_CONFIG,
    { name: 'shard', type: 'string', value: '<i>', help: 'Poll only shard i (0-based) of --total-shards.' },
    { name: 'total-shards', type: 'string', value: '<n>', help: 'Number of replicas the fleet is split into.' },
    {
      name: 'shard-from-hostname',
      type: 'boolean',
      help: "Take the shard from the hostname's ordinal (a StatefulSet pod, name-<i>).",
    },
    { name: 'version', type: 'boolean', help: 'Print the version, revision and Node.js version, and exit.' },
    HELP,
  ],
};

export const DEMO: Command = {
  name: 'demo',
  summary:
    'Starts a simulated fleet of seven nodes, a receiver that prints notifications, and the exporter polling ' +
    'them with its\n' +
    'built-in alerting (default address 127.0.0.1:9715). Stops on Ctrl-C, or when the process that started it exits.',
  flags: [
    LISTEN,
    LOG_LEVEL,
    LOG_FORMAT,
    WEB_CONFIG,
    {
      name: 'state-dir',
      type: 'string',
      value: '<dir>',
      help:
        "Keep the demo's evidence, status history and alert state here across runs (default: a new directory per " +
        'run, removed at exit).',
    },
    {
      name: 'simulator-listen',
      type: 'string',
      value: '<host:port>',
      help: "Address of the simulator's control API, to inject faults (default 127.0.0.1:9716; port 0: any free port).",
    },
    HELP,
  ],
};

export const CHECK_CONFIG: Command = {
  name: 'check-config',
  summary: 'Validates a configuration file and prints what it would poll; exit 1 with file:line:col problems.',
  flags: [
    CONFIG,
    {
      name: 'no-secrets',
      type: 'boolean',
      help: 'Environment variables that are unset (receiver URLs, keys) are named, not problems.',
    },
    HELP,
  ],
  positional: 'config',
};

export const NOTIFY_TEST: Command = {
  name: 'notify-test',
  summary: 'Sends one test notification to each configured receiver (or one) and prints the result.',
  flags: [
    CONFIG,
    { name: 'receiver', type: 'string', value: '<name>', help: 'Only this receiver.' },
    {
      name: 'node',
      type: 'string',
      value: '<name>',
      help: 'Only the receivers a critical alert of this node would reach (routes, maintenance).',
    },
    HELP,
  ],
  positional: 'config',
};

export const ALERT_RULES: Command = {
  name: 'alert-rules',
  summary:
    "Writes a Prometheus rules file (recording and alerting rules, self-sufficient) with the config's " +
    'alerting.rules applied.',
  flags: [CONFIG, HELP],
  positional: 'config',
};
