// What the alert state file (alerting.stateDir) says about deliveries, for tests that kill -9 the
// exporter after a page: the page is recorded delivered only after the receiver's answer is back, and
// a kill before that write sends it again after the restart (at least once, by design).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';

interface SavedDispatcher {
  dispatcher: { log: Record<string, { firing: string[] }>; unconfirmed?: Record<string, unknown> };
}

/**
 * True once the state file records a firing alert told to a receiver and no notification handed
 * out unconfirmed (a page seen by the receiver was written unconfirmed before it was sent, so this
 * holds only once its delivery is recorded); undefined otherwise, for waitFor.
 */
export function deliveryRecorded(stateDir: string): true | undefined {
  let state: SavedDispatcher;
  try {
    state = JSON.parse(readFileSync(path.join(stateDir, ALERT_STATE_FILE), 'utf8')) as SavedDispatcher;
  } catch {
    return undefined; // not written yet, or read while being replaced
  }
  const { log, unconfirmed } = state.dispatcher;
  const told = Object.values(log).some((e) => e.firing.length > 0);
  return told && Object.keys(unconfirmed ?? {}).length === 0 ? true : undefined;
}
