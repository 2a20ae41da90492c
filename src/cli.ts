#!/usr/bin/env node
// Entry point. A run of the exporter holds SIGHUP before anything else loads (see
// startupHup.ts); the command itself, with every module it needs, is imported after that.
import { holdStartupHup } from './startupHup.js';
import { isSubcommand } from './subcommands.js';

if (!isSubcommand(process.argv[2])) holdStartupHup();
await import('./cliMain.js');
