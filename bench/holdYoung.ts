// Imported first by bench/run.ts, so that it runs before any other module of the bench loads: in the
// processes that run the exporter (the exporter and reloads phases, a soak), the young generation is
// held at V8's initial size until the fleet's cap is set, as src/cli.ts does before it imports the
// command. Held later (after the daemon's modules), it had already grown to 16 MB while they loaded
// and stayed there whatever the fleet's cap.
import { holdCompilers } from '../src/compilerPolicy.js';
import { holdYoungGeneration } from '../src/heapPolicy.js';

const phase = process.argv[process.argv.indexOf('--phase') + 1];
if (phase === 'exporter' || phase === 'reloads' || process.argv.includes('--soak')) {
  holdYoungGeneration();
  holdCompilers();
}
