// Configuration problems: each one points at a file position and a key path.

export interface ConfigProblem {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  /** Key path such as `nodes[2].interval`; empty for problems of the document as a whole. */
  path: string;
  message: string;
}

/** "file:line:col: path: message" (the path part is left out when empty). */
/** The line for a configuration file that cannot be read (every command exits 2 for it). */
export function unreadableConfigLine(path: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return `${path}: cannot read configuration file (${e.code === 'EILSEQ' ? e.message : (e.code ?? 'error')})`;
}

export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/** Every problem found in one configuration, in document order. */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    const n = problems.length;
    const head = `${problems[0]?.file ?? 'config'}: ${n} configuration problem${n === 1 ? '' : 's'}`;
    super([head, ...problems.map(formatProblem)].join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type PathSegment = string | number;

const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `nodes[2].labels["x-y"]`: dotted where the key is an identifier, bracketed otherwise. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT_RE.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Document order, without exact repeats (many nodes inheriting one bad default give one problem). */
export function sortProblems(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const k = formatProblem(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return unique.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** A problem known by key path only; parse.ts attaches the file position. */
export interface PathProblem {
  path: PathSegment[];
  /** Point at the key rather than at its value. */
  at?: 'key' | 'value';
  message: string;
}
