// Probe results as a FleetState takes them, for tests of what is derived from it (status, views).
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import type { BuiltInProbeData as ProbeData } from '../../src/probes/index.js';

/** Backoff that waits exactly one interval after a failure and never grows: times stay predictable. */
export const noBackoff = { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 };

/** A 12 ms answer carrying `data`, started at `at`. */
export const ok = (data: ProbeData, at: number): ProbeResult => ({
  kind: 'ok',
  probe: data.probe,
  startedAt: at,
  durationMs: 12,
  data,
  namespace: 'claw',
});

/** A proxy's HTML 502 in 8 ms, started at `at`. */
export const proxy502 = (probe: ProbeName, at: number): ProbeResult => ({
  kind: 'failed',
  probe,
  startedAt: at,
  durationMs: 8,
  reason: 'http_5xx',
  message: `GET /${probe}: HTTP 502`,
  httpStatus: 502,
  response: { method: `GET /${probe}`, status: 502, headers: { 'content-type': 'text/html' }, body: new Uint8Array() },
});
