// Config files and evidence directories of lifecycle tests: YAML for simulated nodes, atomic
// rewrites (as editors and ConfigMap updates do), and a strict raw read of the evidence files.
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface NodeEntry {
  name: string;
  url: string;
  network?: string;
  interval?: string;
  timeout?: string;
}

export interface ConfigText {
  nodes: NodeEntry[];
  interval?: string;
  timeout?: string;
  probes?: string[];
  /** Relative to the config file, as users write it. */
  evidenceDir?: string;
  /** Extra top-level YAML (e.g. an unknown key to make the file invalid). */
  extra?: string;
}

export function configYaml(c: ConfigText): string {
  const node = (n: NodeEntry) =>
    `  - {name: ${n.name}, url: "${n.url}", network: ${n.network ?? 'main'}` +
    (n.interval ? `, interval: ${n.interval}` : '') +
    (n.timeout ? `, timeout: ${n.timeout}` : '') +
    '}';
  return [
    'listen: 127.0.0.1:0',
    'defaults:',
    `  interval: ${c.interval ?? '300ms'}`,
    `  timeout: ${c.timeout ?? '250ms'}`,
    `  probes: [${(c.probes ?? ['health', 'blockNumber']).join(', ')}]`,
    'nodes:',
    ...c.nodes.map(node),
    'evidence:',
    `  dir: ${c.evidenceDir ?? './evidence'}`,
    ...(c.extra ? [c.extra] : []),
    '',
  ].join('\n');
}

/** Write-then-rename in the same directory: a reader never sees half a file. */
export function writeAtomically(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export interface RawEvidence {
  /** Every complete line, parsed as JSON. Throws (naming file and line) if one does not parse. */
  records: Array<Record<string, unknown>>;
  /** Files whose content does not end with a newline (a write torn by a crash). */
  tornFiles: string[];
  files: string[];
}

/**
 * Reads the evidence files without the project's reader: each complete line must be JSON; only the
 * text after the last newline of a file may be a torn write.
 */
export function readRawEvidence(dir: string): RawEvidence {
  const files = readdirSync(dir)
    .filter((f) => f.startsWith('evidence-') && f.endsWith('.jsonl'))
    .sort();
  const records: Array<Record<string, unknown>> = [];
  const tornFiles: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const parts = text.split('\n');
    const tail = parts.pop()!;
    if (tail !== '') tornFiles.push(f);
    parts.forEach((line, i) => {
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        throw new Error(`${f}:${i + 1}: not a JSON record: ${line.slice(0, 120)}`);
      }
    });
  }
  return { records, tornFiles, files };
}
