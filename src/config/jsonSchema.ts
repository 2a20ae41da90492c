// config/schema.json content, for editors (yaml-language-server) and documentation.

import * as z from 'zod';
import { rawConfigSchema } from './sections/all.js';

export function generateSchemaJson(): string {
  return `${JSON.stringify(z.toJSONSchema(rawConfigSchema, { io: 'input' }), null, 2)}\n`;
}
