#!/usr/bin/env node
// Entry point. A run of the exporter holds SIGHUP, SIGTERM and SIGINT before anything else loads
// (see startupSignals.ts) and keeps V8's young generation small and its compilers off until it
// knows the fleet's size (heapPolicy.ts, compilerPolicy.ts); the command itself, with every module
// it needs, is imported after that.
import { holdStartupSignals } from './daemon/startupSignals.js';
import { holdCompilers } from './compilerPolicy.js';
import { holdYoungGeneration } from './heapPolicy.js';
import { exitQuietlyOnClosedStdout } from './cli/stdoutPipe.js';
import { isSubcommand } from './cli/subcommands.js';

if (!isSubcommand(process.argv[2])) {
  holdStartupSignals();
  holdYoungGeneration();
  holdCompilers();
}
exitQuietlyOnClosedStdout();
await import('./cli/main.js');
