// The YAML document with positions: syntax errors, duplicate keys, and path -> line:col.

import {
  LineCounter,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node,
  type Pair,
} from 'yaml';
import { formatPath, type PathSegment } from './problems.js';

export interface Position {
  line: number;
  col: number;
}

/** A problem found while reading the document, before the file name is attached. */
export interface LocatedProblem extends Position {
  path: string;
  message: string;
}

export interface ParsedYaml {
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

export function parseYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    // We detect duplicates ourselves so the message can name the key and its first use.
    uniqueKeys: false,
    // Pretty errors quote source lines, which may hold secrets.
    prettyErrors: false,
  });
  return { doc, lineCounter };
}

export function positionOf(lineCounter: LineCounter, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, col };
}

/** YAML syntax errors; the message is yaml's, which never quotes the source when prettyErrors is off. */
export function syntaxProblems({ doc, lineCounter }: ParsedYaml): LocatedProblem[] {
  return doc.errors.map((e) => ({
    ...positionOf(lineCounter, e.pos[0]),
    path: '',
    message: `YAML syntax error: ${e.message}`,
  }));
}

export function keyText(pair: Pair): string {
  const k = pair.key;
  if (isScalar(k)) return String(k.value);
  return String(k);
}

type Visitor = (node: Node, path: PathSegment[], parentPair?: Pair) => void;

/** Depth-first walk over map values and sequence items (keys are not visited; aliases are not followed). */
export function walkYaml(node: unknown, visit: Visitor, path: PathSegment[] = [], pair?: Pair): void {
  if (!node || isAlias(node)) return;
  if (isMap(node)) {
    visit(node, path, pair);
    for (const item of node.items) {
      if (isPair(item)) walkYaml(item.value, visit, [...path, keyText(item)], item);
    }
  } else if (isSeq(node)) {
    visit(node, path, pair);
    node.items.forEach((item, i) => walkYaml(item, visit, [...path, i]));
  } else if (isScalar(node)) {
    visit(node, path, pair);
  }
}

/** Keys repeated in one mapping; the later use is the problem, the message names the first. */
export function duplicateKeyProblems({ doc, lineCounter }: ParsedYaml): LocatedProblem[] {
  const out: LocatedProblem[] = [];
  walkYaml(doc.contents, (node, path) => {
    if (!isMap(node)) return;
    const first = new Map<string, Pair>();
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const k = keyText(item);
      const prev = first.get(k);
      if (!prev) {
        first.set(k, item);
        continue;
      }
      const at = startOf(item.key) ?? startOf(node) ?? 0;
      const prevLine = positionOf(lineCounter, startOf(prev.key) ?? 0).line;
      out.push({
        ...positionOf(lineCounter, at),
        path: formatPath([...path, k]),
        message: `duplicate key "${k}" (first defined on line ${prevLine})`,
      });
    }
  });
  return out;
}

function startOf(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: [number, number, number] | null }).range;
    if (range) return range[0];
  }
  return undefined;
}

/** Result of following a key path through the document. */
export interface Located {
  position: Position;
  /** True when the whole path exists; false when it stopped at the nearest existing ancestor. */
  found: boolean;
}

/**
 * Position of the value at `path` (or of its key when `at` is 'key'). A path that does not
 * exist (a missing key) resolves to the nearest ancestor that does.
 */
export function locate(
  { doc, lineCounter }: ParsedYaml,
  path: readonly PathSegment[],
  at: 'value' | 'key' = 'value',
): Located {
  let node: unknown = doc.contents;
  let offset = startOf(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isAlias(node)) node = node.resolve(doc);
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p): p is Pair => isPair(p) && keyText(p) === String(seg));
      if (!pair) return { position: positionOf(lineCounter, offset), found: false };
      const keyStart = startOf(pair.key);
      const value = pair.value;
      // An empty value (`url:`) has no text of its own: point at its key.
      const emptyValue = !value || (isScalar(value) && value.value === null && value.source === '');
      if (last && (at === 'key' || emptyValue) && keyStart !== undefined) {
        return { position: positionOf(lineCounter, keyStart), found: true };
      }
      node = value;
      offset = startOf(value) ?? keyStart ?? offset;
    } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
      node = node.items[seg];
      offset = startOf(node) ?? offset;
    } else {
      return { position: positionOf(lineCounter, offset), found: false };
    }
  }
  return { position: positionOf(lineCounter, offset), found: true };
}
