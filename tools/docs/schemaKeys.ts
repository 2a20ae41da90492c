// Every key of the config's JSON schema (config/schema.json, from the zod schema), flattened to
// one row per key path with its type, default, bounds and description, section by section.

export interface SchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

export interface KeyRow {
  /** Dotted path from the document root: `polling.concurrency`, `nodes[].url`, `networks.<name>.decimals`. */
  path: string;
  type: string;
  /** The default as YAML would show it; undefined when the key has none. */
  default?: string;
  required: boolean;
  bounds: string;
  description?: string;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Longer patterns (a date-time's) say less than the format or the description beside them. */
const SHOWN_PATTERN_CHARS = 40;

function variants(n: SchemaNode): SchemaNode[] {
  return n.anyOf ?? n.oneOf ?? [];
}

export function typeOf(n: SchemaNode): string {
  const alts = variants(n);
  if (alts.length > 0) return alts.map(typeOf).join(' or ');
  if (n.const !== undefined) return JSON.stringify(n.const);
  const t = Array.isArray(n.type) ? n.type.join(' or ') : (n.type ?? 'any');
  if (t === 'array') return `list of ${n.items ? typeOf(n.items) : 'any'}`;
  if (t === 'object' && !n.properties && typeof n.additionalProperties === 'object')
    return `map of ${typeOf(n.additionalProperties)}`;
  return t;
}

/** The type as a reader writes it: durations and sizes are strings (or numbers) of a known form. */
function readerType(n: SchemaNode): string {
  const t = typeOf(n);
  if (t === 'string' && /Go-style duration/.test(n.description ?? '')) return 'duration';
  if (t === 'number or string' && /size with unit/.test(n.description ?? '')) return 'size';
  return t;
}

/** A value as it is written in YAML flow style. */
export function yamlValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(yamlValue).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    return entries.length === 0 ? '{}' : `{${entries.map(([k, x]) => `${k}: ${yamlValue(x)}`).join(', ')}}`;
  }
  if (typeof v === 'string')
    return v === '' || /^[\w./:@~-][\w ./:@~-]*$/.test(v) ? (v === '' ? '""' : v) : JSON.stringify(v);
  return String(v);
}

export function boundsOf(n: SchemaNode): string {
  const out: string[] = [];
  const lo = n.minimum ?? n.exclusiveMinimum;
  const hi = n.maximum !== undefined && n.maximum < MAX_SAFE ? n.maximum : n.exclusiveMaximum;
  if (lo !== undefined && hi !== undefined) out.push(`${lo} to ${hi}`);
  else if (lo !== undefined) out.push(n.exclusiveMinimum !== undefined ? `> ${lo}` : `>= ${lo}`);
  else if (hi !== undefined) out.push(`<= ${hi}`);
  if (n.enum) out.push(`one of ${n.enum.map((e) => yamlValue(e)).join(', ')}`);
  if (n.items?.enum) out.push(`each one of ${n.items.enum.map((e) => yamlValue(e)).join(', ')}`);
  if (n.minLength !== undefined && n.minLength > 0)
    out.push(n.minLength === 1 ? 'not empty' : `at least ${n.minLength} characters`);
  if (n.maxLength !== undefined) out.push(`at most ${n.maxLength} characters`);
  if (n.minItems !== undefined && n.minItems > 0) out.push(`at least ${n.minItems} item${n.minItems === 1 ? '' : 's'}`);
  if (n.maxItems !== undefined) out.push(`at most ${n.maxItems} items`);
  if (n.format) out.push(`format ${n.format}`);
  else if (n.pattern && n.pattern.length <= SHOWN_PATTERN_CHARS) out.push(`matches \`${n.pattern}\``);
  return out.join('; ');
}

/** The key rows of `node` and everything below it, `node` first. */
export function keyRows(node: SchemaNode, path: string, required: boolean): KeyRow[] {
  const row: KeyRow = {
    path,
    type: readerType(node),
    required,
    bounds: boundsOf(node),
    ...(node.default !== undefined && { default: yamlValue(node.default) }),
    ...(node.description !== undefined && { description: node.description }),
  };
  return [row, ...childRows(node, path)];
}

function childRows(node: SchemaNode, path: string): KeyRow[] {
  const out: KeyRow[] = [];
  for (const [key, child] of Object.entries(node.properties ?? {}))
    out.push(...keyRows(child, `${path}.${key}`, node.required?.includes(key) ?? false));
  if (node.items && (node.items.properties || variants(node.items).length > 0))
    out.push(...childRows(node.items, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    const value = node.additionalProperties;
    if (value.properties || variants(value).some((v) => v.properties)) out.push(...childRows(value, `${path}.<name>`));
  }
  // A key that takes a value or an object ({file: ...}): the object's keys are listed too.
  for (const alt of variants(node)) if (alt.properties) out.push(...childRows(alt, path));
  return out;
}
