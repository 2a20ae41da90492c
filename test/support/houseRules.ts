// Reads TypeScript sources with the compiler API and reports what breaks the house rules:
// files over a line limit, functions over a line limit, and import cycles between files.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export interface HouseReport {
  longFiles: { file: string; lines: number }[];
  longFunctions: LongFunction[];
  cycles: string[][];
  /** `declare module '...'` and `declare global` blocks: types changed from outside their own file. */
  augmentations: { file: string; line: number; target: string }[];
  /** Every import, file -> imported files, as paths relative to the root. */
  imports: Map<string, string[]>;
}

/**
 * The layer of a file: the layer of the longest entry that names it. An entry is a file, a folder
 * (ending in `/`) holding it, or a star, a slash and a name: a file of that name in any folder. Layers are listed
 * bottom to top; an unlisted file has no layer.
 */
export function layerOf(file: string, layers: readonly (readonly string[])[]): number | undefined {
  let best: { layer: number; length: number } | undefined;
  layers.forEach((entries, layer) => {
    for (const e of entries) {
      const hit = e.startsWith('*/') ? file.endsWith(e.slice(1)) : e.endsWith('/') ? file.startsWith(e) : file === e;
      // The longest entry wins: `config/sections/` can sit above `config/`.
      if (hit && (!best || e.length > best.length)) best = { layer, length: e.length };
    }
  });
  return best?.layer;
}

/** Imports from a file to a file of a higher layer, and files that no layer holds. */
export function layerViolations(
  imports: Map<string, string[]>,
  layers: readonly (readonly string[])[],
): { upward: string[]; unplaced: string[] } {
  const upward: string[] = [];
  const unplaced: string[] = [];
  for (const [file, targets] of imports) {
    const from = layerOf(file, layers);
    if (from === undefined) {
      unplaced.push(file);
      continue;
    }
    for (const t of targets) {
      const to = layerOf(t, layers);
      if (to !== undefined && to > from) upward.push(`${file} -> ${t}`);
    }
  }
  return { upward, unplaced };
}

export function listSources(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...listSources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

function parsed(file: string, text: string | ts.SourceFile): ts.SourceFile {
  return typeof text === 'string' ? ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) : text;
}

function lineCount(text: string): number {
  const lines = text.split('\n');
  return lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    return parent.name.getText(source);
  }
  if (parent && ts.isCallExpression(parent)) return `(callback to ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function-like node with its span in lines, nested ones included on their own. */
export function functionSizes(file: string, text: string | ts.SourceFile): LongFunction[] {
  const source = parsed(file, text);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: functionName(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Relative imports, re-exports and dynamic imports, type-only ones too: a cycle of types still
 * ties two modules together. */
export function relativeImports(file: string, text: string | ts.SourceFile): string[] {
  const source = parsed(file, text);
  const out: string[] = [];
  const add = (specifier: ts.Node | undefined): void => {
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      out.push(resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts')));
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * Module augmentations (`declare module 'x' { ... }`) and global ones (`declare global`): a reader of
 * the augmented module never sees what they add.
 */
export function moduleAugmentations(
  file: string,
  text: string | ts.SourceFile,
): { file: string; line: number; target: string }[] {
  const source = parsed(file, text);
  const out: { file: string; line: number; target: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isModuleDeclaration(node) && (ts.isStringLiteral(node.name) || node.name.text === 'global')) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      out.push({ file, line, target: node.name.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Strongly connected groups of more than one file (or a file importing itself), by Tarjan. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string): void => {
    order.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, order.get(w)!));
      }
    }
    if (low.get(v) === order.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) connect(v);
  return cycles;
}

export function checkHouse(root: string, limits: { fileLines: number; functionLines: number }): HouseReport {
  const files = listSources(root);
  const report: HouseReport = { longFiles: [], longFunctions: [], cycles: [], augmentations: [], imports: new Map() };
  const graph = new Map<string, string[]>();
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const file = relative(root, path);
    const lines = lineCount(text);
    if (lines > limits.fileLines) report.longFiles.push({ file, lines });
    const source = parsed(path, text);
    for (const fn of functionSizes(file, source)) if (fn.lines > limits.functionLines) report.longFunctions.push(fn);
    report.augmentations.push(...moduleAugmentations(file, source));
    graph.set(path, relativeImports(path, source));
  }
  report.cycles = importCycles(graph).map((group) => group.map((p) => relative(root, p)));
  for (const [path, targets] of graph)
    report.imports.set(
      relative(root, path),
      targets.map((t) => relative(root, t)),
    );
  return report;
}
