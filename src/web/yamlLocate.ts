// Turns a YAML parse error or a schema issue into "file:line:col: key.path: message", by finding
// the offending node in the parsed document (the nearest existing ancestor for a missing key).
import { isCollection, isMap, isScalar, type Document, type LineCounter, type Node } from 'yaml';

export type IssuePath = ReadonlyArray<PropertyKey>;

export function locate(doc: Document, lines: LineCounter, path: IssuePath, key?: string): { line: number; col: number } | undefined {
  const segs = path.filter((p): p is string | number => typeof p !== 'symbol');
  for (let n = segs.length; n >= 0; n--) {
    const node = doc.getIn(segs.slice(0, n), true) as Node | undefined;
    if (!node || !node.range) continue;
    // For an unknown key, point at the key itself rather than at its parent map.
    if (key !== undefined && n === segs.length && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      const k = pair?.key as Node | undefined;
      if (k?.range) return lines.linePos(k.range[0]);
    }
    // A whole section (map or list) is best named by its key line, not by its first entry.
    if (isCollection(node) && n > 0) {
      const parent = doc.getIn(segs.slice(0, n - 1), true) as Node | undefined;
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === segs[n - 1]);
        const k = pair?.key as Node | undefined;
        if (k?.range) return lines.linePos(k.range[0]);
      }
    }
    return lines.linePos(node.range[0]);
  }
  return undefined;
}

export function formatPath(path: IssuePath, key?: string): string {
  const parts = [...path, ...(key === undefined ? [] : [key])].map(String);
  return parts.length ? parts.join('.') : '(top level)';
}

export function where(file: string, pos: { line: number; col: number } | undefined): string {
  return pos ? `${file}:${pos.line}:${pos.col}` : file;
}
