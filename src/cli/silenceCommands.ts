// The flags of `silence add|query|expire` and `ack`: amtool's spellings where they overlap
// (--alertmanager.url is an alias of --url), read by the parser and by --help.
import type { Command, Flag } from './options.js';

const HELP: Flag = { name: 'help', short: 'h', type: 'boolean', help: 'Show this help and exit.' };
const URL_FLAG: Flag = {
  name: 'url',
  type: 'string',
  aliases: ['alertmanager.url'],
  value: '<url>',
  help:
    'The running exporter, e.g. http://user:password@exporter:9715 (default: $LEDGER_EXPORTER_URL). ' +
    'The password is never printed.',
};
const HTTP_CONFIG: Flag = {
  name: 'http.config.file',
  type: 'string',
  value: '<file.yml>',
  help: "Basic auth for the requests, in amtool's format (basic_auth: username, password or password_file).",
};
const OUTPUT: Flag = {
  name: 'output',
  short: 'o',
  type: 'string',
  value: 'simple|json',
  help: 'simple (a table, the default) or json (the API answer).',
};
const COMMENT: Flag = { name: 'comment', short: 'c', type: 'string', value: '<text>', help: 'Why.' };
const AUTHOR: Flag = {
  name: 'author',
  short: 'a',
  type: 'string',
  value: '<name>',
  help: 'Who (kept as createdBy; default: your login name).',
};
const COMMON = [URL_FLAG, HTTP_CONFIG];

export const SILENCE_ADD: Command = {
  name: 'silence add',
  summary:
    'Silences the alerts matching every matcher (name=value, name!=value, name=~regex, name!~regex; a first ' +
    'word alone is the alert name) and prints the silence id.',
  flags: [
    { name: 'duration', short: 'd', type: 'string', value: '<duration>', help: 'How long, e.g. 2h, 1d (default 1h).' },
    { name: 'end', type: 'string', value: '<RFC3339>', help: 'End time instead of --duration.' },
    { name: 'start', type: 'string', value: '<RFC3339>', help: 'Start time (default now).' },
    COMMENT,
    AUTHOR,
    ...COMMON,
    HELP,
  ],
  rest: 'matcher',
};

export const SILENCE_QUERY: Command = {
  name: 'silence query',
  summary: 'Lists the active and pending silences (those matching the matchers, if any).',
  flags: [
    { name: 'expired', type: 'boolean', help: 'List the expired silences instead.' },
    { name: 'quiet', short: 'q', type: 'boolean', help: 'Print only the silence ids.' },
    OUTPUT,
    ...COMMON,
    HELP,
  ],
  rest: 'matcher',
};

export const SILENCE_EXPIRE: Command = {
  name: 'silence expire',
  summary: 'Expires silences now, by id.',
  flags: [...COMMON, HELP],
  rest: 'id',
};

export const ACK: Command = {
  name: 'ack',
  summary:
    'Acknowledges one firing alert by its fingerprint (/api/v2/alerts, the status page, the notification): ' +
    'silenced until it resolves.',
  flags: [COMMENT, AUTHOR, ...COMMON, HELP],
  rest: 'fingerprint',
};

export const SILENCE_COMMANDS = [SILENCE_ADD, SILENCE_QUERY, SILENCE_EXPIRE] as const;
