// Prometheus view of the evidence store, read from its stats at scrape time (a RegistryExtension
// for the metrics view), so the store itself does not depend on prom-client.
import { Counter, Gauge, type Registry } from '../deps/promClient.js';
import { registerTextFamily } from '../exposition/textFamily.js';
import type { EvidenceStats } from './store.js';

/**
 * `nodes`, when given, names the series of ledger_evidence_records_total: every one from 0 (so
 * increase() sees the first record) and nothing for nodes no longer configured.
 */
export function evidenceCollectors(
  registry: Registry,
  store: { stats(): EvidenceStats },
  nodes?: () => Iterable<string>,
): void {
  const registers = [registry];

  // One series per node: written as text (through prom-client's Counter, label hashing cost
  // ~35 ms per scrape at 10,000 nodes).
  registerTextFamily(registry, {
    name: 'ledger_evidence_records_total',
    help: 'Evidence records (5xx answers) written and synced to disk, by node.',
    type: 'counter',
    labelNames: ['node'],
    collect(emit) {
      const counts = store.stats().recordsByNode;
      if (!nodes) for (const [node, n] of counts) emit([['node', node]], n);
      else for (const node of nodes()) emit([['node', node]], counts.get(node) ?? 0);
    },
  });

  new Counter({
    name: 'ledger_evidence_write_errors_total',
    help: 'Evidence write batches that failed (directory missing or unwritable, disk full, I/O error).',
    registers,
    collect() {
      this.reset();
      this.inc(store.stats().writeErrors);
    },
  });

  new Counter({
    name: 'ledger_evidence_dropped_total',
    help: 'Evidence records never written: queue full (slow disk), failed write, or store closed.',
    registers,
    collect() {
      this.reset();
      this.inc(store.stats().dropped);
    },
  });

  new Gauge({
    name: 'ledger_evidence_bytes',
    help: 'Total size of the evidence files in evidence.dir.',
    registers,
    collect() {
      this.set(store.stats().bytes);
    },
  });
}
