// The maintenance windows' gauge, registered with the alerting metrics whether or not a schedule
// runs (its module, with the cron scheduler, is loaded only with an `alerting:` section).
import { Gauge, type Registry } from '../../deps/promClient.js';

/** The parts of a running MaintenanceSchedule the gauge reads. */
interface WindowsShown {
  active(): ReadonlyArray<{ name: string }>;
  names(): Iterable<string>;
}

/** ledger_alert_maintenance_active{name}: 1 while the window is active, 0 otherwise. */
export function maintenanceCollectors(registry: Registry, schedule: () => WindowsShown | undefined): void {
  new Gauge({
    name: 'ledger_alert_maintenance_active',
    help: 'Whether the maintenance window is active (1) or not (0); alerts it matches are not sent.',
    labelNames: ['name'],
    registers: [registry],
    collect() {
      this.reset();
      const s = schedule();
      if (!s) return;
      const active = new Set(s.active().map((o) => o.name));
      for (const name of s.names()) this.set({ name }, active.has(name) ? 1 : 0);
    },
  });
}
