// Writes alerts/ledger-fleet-exporter.recording.yml from src/recording/rules.ts
// (part of `npm run alert-rules`).
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRecordingFile } from './rules.js';

/** The repository's recording rules file, from src/recording or dist/recording alike. */
export function defaultRecordingFile(): string {
  return path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'alerts',
    'ledger-fleet-exporter.recording.yml',
  );
}

const isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const file = defaultRecordingFile();
  writeFileSync(file, renderRecordingFile());
  console.log(`wrote ${file}`);
}
