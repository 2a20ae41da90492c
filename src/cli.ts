#!/usr/bin/env node
// Entry point. A run of the exporter holds SIGHUP, SIGTERM and SIGINT before anything else loads
// (see startupHup.ts and startupStop.ts); the command itself, with every module it needs, is
// imported after that.
import { holdStartupHup } from './startupHup.js';
import { holdStartupStop } from './startupStop.js';
import { isSubcommand } from './subcommands.js';

if (!isSubcommand(process.argv[2])) {
  // Stops first: a caught SIGHUP then shows that all three are held (Node.js itself catches
  // SIGTERM/SIGINT from its start, to restore the terminal before it dies of them).
  holdStartupStop();
  holdStartupHup();
}
await import('./cliMain.js');
