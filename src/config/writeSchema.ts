// Writes config/schema.json (run after a build: `node dist/config/writeSchema.js [out]`).
// src/config and dist/config both sit two levels below the package root.

import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateSchemaJson } from './jsonSchema.js';

const target = process.argv[2] ?? fileURLToPath(new URL('../../config/schema.json', import.meta.url));
await writeFile(target, generateSchemaJson());
process.stdout.write(`wrote ${target}\n`);
