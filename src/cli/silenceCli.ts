// `silence <add|query|expire>` and `ack`: picks the verb (a misspelt one answered with the
// nearest), parses its flags from the one table (silenceCommands.ts), answers --help.
import type { Secrets } from '../redact.js';
import { commandHelp, editDistance, parseCommandArgs, UsageError, type Command } from './options.js';
import { ackAlert, silenceAdd, silenceExpire, silenceQuery, type SilenceIO } from './silence.js';
import { ACK, SILENCE_ADD, SILENCE_COMMANDS, SILENCE_EXPIRE, SILENCE_QUERY } from './silenceCommands.js';

const PROGRAM = 'ledger-fleet-exporter';

type Run = typeof silenceAdd;
const VERBS: ReadonlyMap<string, [Command, Run]> = new Map([
  ['add', [SILENCE_ADD, silenceAdd]],
  ['query', [SILENCE_QUERY, silenceQuery]],
  ['expire', [SILENCE_EXPIRE, silenceExpire]],
]);

export interface CliIO {
  secrets: Secrets;
  write: (line: string) => void;
  problem: (line: string) => void;
}

export async function runSilenceCli(argv: string[], io: CliIO): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.write(`Usage: ${PROGRAM} silence add|query|expire [flags] ...\n`);
    for (const c of SILENCE_COMMANDS) io.write(commandHelp(c, PROGRAM));
    return verb === undefined ? 2 : 0;
  }
  const found = VERBS.get(verb);
  if (!found) {
    const near = [...VERBS.keys()].find((v) => editDistance(v, verb) <= 2);
    throw new UsageError(
      `unknown silence command "${verb}"${near ? `; did you mean "silence ${near}"?` : ''} (add, query, expire)`,
    );
  }
  return runVerb(found[0], found[1], rest, io);
}

export async function runAckCli(argv: string[], io: CliIO): Promise<number> {
  return runVerb(ACK, ackAlert, argv, io);
}

async function runVerb(command: Command, run: Run, argv: string[], io: CliIO): Promise<number> {
  const { values, args } = parseCommandArgs(command, argv);
  if (values.help) {
    io.write(commandHelp(command, PROGRAM));
    return 0;
  }
  const sio: SilenceIO = { secrets: io.secrets, write: io.write, problem: io.problem };
  return run(values, args, sio);
}
