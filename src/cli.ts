#!/usr/bin/env node
// Entry point. A run of the exporter holds SIGHUP, SIGTERM and SIGINT before anything else loads
// (see startupHup.ts and startupStop.ts); the command itself, with every module it needs, is
// imported after that.
import { holdStartupHup } from './startupHup.js';
import { holdStartupStop } from './startupStop.js';
import { isSubcommand } from './subcommands.js';

if (!isSubcommand(process.argv[2])) {
  holdStartupHup();
  holdStartupStop();
}
await import('./cliMain.js');
