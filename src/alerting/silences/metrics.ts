// The silences' metrics, apart from the keeper (keeper.ts): /metrics declares the family in every
// daemon, and the keeper's code loads only with an `alerting:` section (alerting/live.ts).
import { Gauge, type Registry } from '../../deps/promClient.js';
import type { SilenceKeeper } from './keeper.js';

/** ledger_alert_silences{state}: the kept silences by state (pending | active | expired). */
export function silenceCollectors(
  registry: Registry,
  keeper: () => SilenceKeeper | undefined,
  now: () => number,
): void {
  new Gauge({
    name: 'ledger_alert_silences',
    help: 'Silences and acknowledgements of the built-in alerting by state (pending | active | expired).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      const k = keeper();
      if (!k) return;
      const counts = { pending: 0, active: 0, expired: 0 };
      for (const s of k.store.list(now())) counts[s.state]++;
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
}
