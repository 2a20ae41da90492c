// Positions for web config problems: the configuration's YAML position finder, plus the
// "file:line:col" and key-path formatting the web config messages use.
import { isCollection, type Document, type LineCounter } from 'yaml';
import { locate as locateInConfig } from '../config/yamlDoc.js';

export type IssuePath = ReadonlyArray<PropertyKey>;

/** Where `path` (or its unknown `key`) is; the nearest existing ancestor for a missing key. */
export function locate(
  doc: Document,
  lines: LineCounter,
  path: IssuePath,
  key?: string,
): { line: number; col: number } | undefined {
  const segs = path.filter((p): p is string | number => typeof p !== 'symbol');
  // An unknown key, and a whole section (map or list), are best named by their key line.
  const at = key !== undefined || isCollection(doc.getIn(segs, true)) ? 'key' : 'value';
  const found = locateInConfig(
    { doc: doc as Document.Parsed, lineCounter: lines },
    key === undefined ? segs : [...segs, key],
    at,
  );
  return found.position;
}

export function formatPath(path: IssuePath, key?: string): string {
  const parts = [...path, ...(key === undefined ? [] : [key])].map(String);
  return parts.length ? parts.join('.') : '(top level)';
}

export function where(file: string, pos: { line: number; col: number } | undefined): string {
  return pos ? `${file}:${pos.line}:${pos.col}` : file;
}
