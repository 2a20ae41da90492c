// How glibc's malloc should treat the exporter's large buffers, set in the environment of every way
// we start it (the image's ENV, the systemd unit, `npm start`, `npm run bench`): glibc reads it only
// when the process starts, so the daemon cannot set it for itself.
// Every freed buffer of 128 KB to 32 MB that glibc had mapped on its own raises its threshold for
// mapping to that size: a first /metrics render grows its memory by doubling to a few MB, and
// from then on every buffer under that size (zlib output, gzip bodies, each run's lines) comes from
// the heap, which keeps the highest point it ever reached resident. A fixed threshold returns such
// buffers to the system when freed. Measured at 1,000 nodes / 15 s with gzip scrapes every 5 s
// (one process each way, 60 s after a minute's warm-up): RSS 148-163 MB -> 136-151 MB, glibc's
// heap 24 -> 19 MB, CPU per second the same (32.7 and 32.2 ms).

/** The environment that fixes glibc's mmap threshold at its default (128 KB). */
export const MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** Whether `env` carries MALLOC_ENV (an operator's own value counts as given). */
export function mallocPolicyGiven(env: NodeJS.ProcessEnv = process.env): boolean {
  return Object.keys(MALLOC_ENV).every((k) => env[k] !== undefined && env[k] !== '');
}
