// The CLI's subcommand names; any other first argument runs the exporter. Imports nothing: the
// entry point reads it before loading the rest (see startupSignals.ts).
export const SUBCOMMANDS = [
  'check-config',
  'demo',
  'notify-test',
  'alert-rules',
  'simulate',
  'evidence',
  'silence',
  'ack',
  'help',
] as const;

export type Subcommand = (typeof SUBCOMMANDS)[number];

export function isSubcommand(arg: string | undefined): arg is Subcommand {
  return (SUBCOMMANDS as readonly (string | undefined)[]).includes(arg);
}
