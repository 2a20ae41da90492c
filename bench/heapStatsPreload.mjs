// Preloaded by bench/idle.ts (--heap-stats): on SIGWINCH, writes the process's memory figures and
// V8's heap spaces to HEAP_STATS_FILE, so a daemon measured from outside needs no timer for it.
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const mb = (b) => Math.round((b / 1048576) * 10) / 10;
process.on('SIGWINCH', () => {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((s) => s.space_size > 0)
      .map((s) => [s.space_name, { size: mb(s.space_size), used: mb(s.space_used_size) }]),
  );
  writeFileSync(
    process.env.HEAP_STATS_FILE,
    JSON.stringify({ heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), spaces }),
  );
});
