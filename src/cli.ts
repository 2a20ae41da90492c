#!/usr/bin/env node
// Entry point. A run of the exporter holds SIGHUP, SIGTERM and SIGINT before anything else loads
// (see startupSignals.ts); the command itself, with every module it needs, is imported after that.
import { holdStartupSignals } from './daemon/startupSignals.js';
import { exitQuietlyOnClosedStdout } from './cli/stdoutPipe.js';
import { isSubcommand } from './cli/subcommands.js';
import { applyHeapPolicy } from './heapPolicy.js';

// The heap policy before the modules load too: loading them is one long task in which V8 grew a
// young generation no GC had reported yet; it is fitted to the fleet once the config is read.
if (!isSubcommand(process.argv[2]) || process.argv[2] === 'demo') applyHeapPolicy(process.execArgv, true);
if (!isSubcommand(process.argv[2])) holdStartupSignals();
exitQuietlyOnClosedStdout();
await import('./cli/main.js');
