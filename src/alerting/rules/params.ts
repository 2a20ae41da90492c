// Per-alert overrides from config (`alerting.rules`) applied to a definition's defaults: the one
// place both the built-in engine and the generated Prometheus rules take their parameters from.
import type { AlertDefinition, AlertParams } from './types.js';

/** Per-alert overrides from config (`alerting.rules`). */
export interface RuleOverride extends Partial<AlertParams> {
  enabled?: boolean;
}

export type RuleOverrides = Readonly<Record<string, RuleOverride>>;

/** The parameters in effect for an alert; undefined when the override disables it. */
export function effectiveParams(def: AlertDefinition, overrides: RuleOverrides | undefined): AlertParams | undefined {
  const { enabled, ...given } = overrides?.[def.name] ?? {};
  if (enabled === false) return undefined;
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<AlertParams>;
  return { ...def.defaults, ...defined };
}
