// alerting: the built-in alert engine and its receivers. The schema and its rules live with the
// engine (src/alerting/configSchema.ts); this module plugs them into the config.
import { alertingSchema } from '../../alerting/configSchema.js';
import { alertingSecrets, resolveAlerting } from '../../alerting/settings.js';
import { defineSection } from './section.js';

export const alertingSection = defineSection({
  shape: { alerting: alertingSchema },
  resolve: ({ alerting }, { baseDir }) => (alerting ? { alerting: resolveAlerting(alerting, baseDir) } : {}),
  secrets: (c) => alertingSecrets(c.alerting),
});
