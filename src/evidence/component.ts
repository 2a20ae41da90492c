// Joins the evidence store to the daemon: it keeps every record (probe results' and other
// components'), serves /api/evidence and the readers of the status pages, and exports its metrics.
import { hostname } from 'node:os';
import type { DaemonComponent } from '../daemon/component.js';
import { VERSION } from '../version.js';
import { createEvidenceApi, type EvidenceApi } from './api.js';
import { evidenceCollectors } from './metrics.js';
import { EvidenceStore } from './store.js';

export interface EvidenceComponent extends DaemonComponent {
  /** The open store (undefined before the daemon opened it). */
  store(): EvidenceStore | undefined;
}

export function evidenceComponent(): EvidenceComponent {
  let store: EvidenceStore | undefined;
  let api: EvidenceApi | undefined;
  let nodes: (() => string[]) | undefined;
  const opened = () => {
    if (!store) throw new Error('evidence component used before the daemon opened it');
    return store;
  };
  return {
    name: 'evidence',
    store: () => store,
    async open(ctx) {
      const logger = ctx.logger.child({ component: 'evidence' });
      store = await EvidenceStore.open(ctx.initial.evidence, {
        logger,
        secrets: ctx.secrets,
        runner: { hostname: hostname(), version: VERSION },
      });
      // One set of limits for /api/evidence and the node pages.
      api = createEvidenceApi(store);
      nodes = ctx.evidenceNodes;
    },
    collectors: (registry) => evidenceCollectors(registry, opened(), nodes),
    recordEvidence: (input) => void store?.append(input),
    evidenceApi: () => api,
    signals: () => ({ evidenceWriteErrors: store?.stats().writeErrors ?? 0 }),
    close: () => store?.close(),
  };
}
