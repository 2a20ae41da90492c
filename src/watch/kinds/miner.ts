// Watched miners: getMinerInfo per miner and the network's epoch. Alerts: inactive, check-in
// missed, reward reduced.
import { MINER_ALERTS } from '../../alerting/rules/definitions/watchEntries.js';
import { watchMinerInfoProbe } from '../../probes/watch/minerInfo.js';
import { minerView } from '../entryViews.js';
import { MINER_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { MINER_PANELS } from '../panels/miner.js';
import type { WatchedMinerView } from '../types.js';
import { minerState } from '../words.js';

export const minerKind = defineWatchKind<WatchedMinerView>({
  kind: 'miner',
  list: 'miners',
  description: 'Miners to watch: registration, activity, check-ins, reward multiplier.',
  fields: {},
  resolve: () => ({}),
  reads: { watchMinerInfo: watchMinerInfoProbe },
  fromNetwork: 'epoch',
  view: minerView,
  families: MINER_FAMILIES,
  state: minerState,
  alerts: MINER_ALERTS,
  panels: MINER_PANELS,
});
