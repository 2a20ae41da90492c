// docs/configuration.md from the config's JSON schema: every key with its type, default, bounds
// and description, one section per top-level key, each with a short example.
import { SECTION_EXAMPLES } from './configExamples.js';
import { anchorOf, code, escapeHtml, generatedNotice, table } from './markdown.js';
import { keyRows, typeOf, yamlValue, type KeyRow, type SchemaNode } from './schemaKeys.js';

const INTRO = `# Configuration reference

One YAML file, given with \`--config <file>\`. Check it without starting anything:
\`ledger-fleet-exporter check-config <file>\` (exit 0 when valid; otherwise one
\`file:line:col: key: message\` line per problem, all problems at once). The JSON schema for editors
is [\`config/schema.json\`](../config/schema.json) (first line of a config:
\`# yaml-language-server: $schema=<path>/config/schema.json\`).

- **Durations** are Go-style: \`500ms\`, \`15s\`, \`2m\`, \`1h30m\`, in whole milliseconds. Each field's
  floor is in its description.
- **Sizes** are a number of bytes or a number with a unit: \`KB\`, \`MB\`, \`GB\` (1000-based),
  \`KiB\`, \`MiB\`, \`GiB\` (1024-based).
- **\`\${VAR}\`** is replaced by the environment variable in string values (never in raw text, so a
  value cannot inject YAML); \`$\${\` is a literal \`\${\`. A missing variable is an error.
- **Secrets** (the agent key, header values, passwords in URLs, receiver URLs, tokens and keys) may
  come from the environment or a file; they never appear in logs, evidence, metric labels, pages
  or error messages.
- **Unknown keys are errors**, reported with file, line and column.
- **Reloads**: \`SIGHUP\` or a change of the file reloads it; an invalid file keeps the running
  config. \`listen\`, \`polling\`, \`evidence\` and \`agentPlatform\` take effect at the next restart.

Key paths: \`a.b\` is key \`b\` inside \`a\`; \`a[].b\` is key \`b\` of each item of list \`a\`;
\`a.<name>.b\` is key \`b\` of each entry of map \`a\`. Examples of whole files:
[\`config/example-small.yaml\`](../config/example-small.yaml),
[\`config/example-fleet.yaml\`](../config/example-fleet.yaml),
[\`config/example-alerting.yaml\`](../config/example-alerting.yaml).
`;

export function configReferencePage(schema: SchemaNode): string {
  const sections = Object.entries(schema.properties ?? {});
  const contents = sections.map(([key]) => `- [\`${key}\`](#${anchorOf(key)})`).join('\n');
  const body = sections
    .map(([key, node]) => sectionText(key, node, schema.required?.includes(key) ?? false))
    .join('\n');
  return (
    `${generatedNotice('the config schema (src/config/sections/, src/alerting/configSchema.ts)')}\n` +
    `${INTRO}\n${contents}\n\n${body}`
  );
}

function sectionText(key: string, node: SchemaNode, required: boolean): string {
  const rows = keyRows(node, key, required);
  const lead = escapeHtml([required ? 'Required.' : 'Optional.', node.description ?? ''].filter(Boolean).join(' '));
  const example = SECTION_EXAMPLES[key] ?? outline(key, node);
  const label = SECTION_EXAMPLES[key] ? 'Example' : 'Outline (from the schema)';
  return `## \`${key}\`\n\n${lead}\n\n${keyTable(rows)}\n\n${label}:\n\n\`\`\`yaml\n${example}\`\`\`\n`;
}

function keyTable(rows: KeyRow[]): string {
  return table(
    ['key', 'type', 'default', 'bounds', 'description'],
    rows.map((r) => [
      code(r.path),
      r.type,
      r.default !== undefined ? code(r.default) : r.required ? '**required**' : '',
      r.bounds,
      r.description ?? '',
    ]),
  );
}

/** A YAML outline of a section without a written example: its required keys and defaults. */
export function outline(key: string, node: SchemaNode): string {
  return `${key}:${outlineValue(node, 1)}\n`;
}

function outlineValue(node: SchemaNode, depth: number): string {
  const pad = '  '.repeat(depth);
  if (node.properties) {
    const lines = Object.entries(node.properties)
      .filter(([k, child]) => node.required?.includes(k) || child.default !== undefined)
      .map(
        ([k, child]) =>
          `\n${pad}${k}:` +
          (child.default !== undefined && !child.properties
            ? ` ${yamlValue(child.default)}`
            : outlineValue(child, depth + 1)),
      );
    return lines.length > 0 ? lines.join('') : ' {}';
  }
  if (node.items?.properties) return `\n${pad}-${outlineValue(node.items, depth + 1).replace(/^\n\s*/, ' ')}`;
  return ` <${typeOf(node)}>`;
}
