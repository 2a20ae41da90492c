// The whole config schema, every deferred section included: what the JSON schema, the reference
// docs, the tests and the one-shot commands read. A running daemon loads a deferred section only
// for a document that has it (index.ts).
import { alertingSection } from './alerting.js';
import { configSchema, provideSections } from './index.js';
import { watchSection } from './watch.js';

provideSections({ alerting: alertingSection, watch: watchSection });

export const rawConfigSchema = configSchema();
