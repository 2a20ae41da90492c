// parseConfig: YAML text -> ExporterConfig, or a ConfigError listing every problem found.

import { dirname, resolve as resolvePath } from 'node:path';
import type { ExporterConfig } from './exporterConfig.js';
import { expandDocument, PLACEHOLDERS, type Env, type UnsetPlaceholders } from './envExpand.js';
import { ConfigError, formatPath, sortProblems, type ConfigProblem, type PathProblem } from './problems.js';
import { configSchema, loadSectionsFor, requireSections, resolveSections, sectionProblems } from './sections/index.js';
import {
  duplicateKeyProblems,
  locate,
  parseYaml,
  syntaxProblems,
  type LocatedProblem,
  type ParsedYaml,
} from './yamlDoc.js';
import { issuesToPathProblems } from './zodIssues.js';
import { readUtf8File } from '../files/utf8.js';

export interface ParseOptions {
  /** Shown in problems; relative paths in the config resolve against its directory. */
  file: string;
  /** Source of `${VAR}`; defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/** Parses with the sections loaded so far: config/index.ts loads them all (a running daemon uses readConfig). */
export function parseConfig(text: string, opts: ParseOptions): ExporterConfig {
  return parseWith(text, opts);
}

/** As parseConfig, first loading the deferred sections (sections/index.ts) the document has. */
export async function readConfig(text: string, opts: ParseOptions): Promise<ExporterConfig> {
  const doc = readDocument(text, opts);
  await loadSectionsFor(doc.data);
  return validate(doc, opts);
}

/**
 * For commands that need no secret (alert-rules, check-config --no-secrets): a variable the
 * environment lacks is not a problem; the config is read with a placeholder in its place and the
 * unset names are returned, to be said. Any other problem is still a ConfigError.
 */
export function parseConfigWithoutSecrets(
  text: string,
  opts: ParseOptions,
): { config: ExporterConfig; unset: string[] } {
  const unset: UnsetPlaceholders = { found: new Map(), attempt: new Map() };
  for (let round = 0; ; round++) {
    unset.found.clear();
    try {
      const config = parseWith(text, opts, unset);
      return { config, unset: [...new Set([...unset.found.values()].flatMap((s) => [...s]))].sort() };
    } catch (err) {
      // A field that refused its placeholder gets the next one; out of placeholders, the problem stands.
      if (!(err instanceof ConfigError)) throw err;
      const refused = err.problems.filter((p) => unset.found.has(p.path));
      if (refused.length === 0) throw err;
      if (round >= PLACEHOLDERS.length - 1)
        throw new ConfigError(
          err.problems.map((p) => {
            const names = unset.found.get(p.path);
            return names ? { ...p, message: `environment variable "${[...names].join('", "')}" is not set` } : p;
          }),
        );
      for (const p of refused) unset.attempt.set(p.path, (unset.attempt.get(p.path) ?? 0) + 1);
    }
  }
}

function parseWith(text: string, opts: ParseOptions, unset?: UnsetPlaceholders): ExporterConfig {
  return validate(readDocument(text, opts, unset), opts);
}

/** A document read and expanded, with the problems found so far: what validate checks. */
interface ReadDocument {
  parsed: ParsedYaml;
  data: unknown;
  problems: LocatedProblem[];
  failedPaths: ReadonlySet<string>;
}

const failWith = (opts: ParseOptions, found: LocatedProblem[]) =>
  new ConfigError(sortProblems(found.map((p): ConfigProblem => ({ file: opts.file, ...p }))));

function readDocument(text: string, opts: ParseOptions, unset?: UnsetPlaceholders): ReadDocument {
  const env: Env = opts.env ?? process.env;
  const parsed = parseYaml(text);

  // A document that does not parse gives no trustworthy structure to check further.
  const syntax = syntaxProblems(parsed);
  if (syntax.length > 0) throw failWith(opts, syntax);

  const problems: LocatedProblem[] = duplicateKeyProblems(parsed);
  const expansion = expandDocument(parsed, env, unset);
  problems.push(...expansion.problems);

  let data: unknown;
  try {
    data = parsed.doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // e.g. excessive alias expansion ("billion laughs")
    throw failWith(opts, [
      ...problems,
      { line: 1, col: 1, path: '', message: `cannot read YAML: ${(e as Error).message}` },
    ]);
  }
  if (data === null || data === undefined) {
    throw failWith(opts, [
      ...problems,
      { line: 1, col: 1, path: '', message: 'configuration is empty: at least one node is required' },
    ]);
  }
  return { parsed, data, problems, failedPaths: expansion.failedPaths };
}

function validate({ parsed, data, problems, failedPaths }: ReadDocument, opts: ParseOptions): ExporterConfig {
  requireSections(data);
  const schema = configSchema();
  const result = schema.safeParse(data);
  const later: PathProblem[] = [
    ...(result.success ? [] : issuesToPathProblems(result.error.issues, schema, [], data)),
    ...sectionProblems(data),
  ];
  for (const p of later) {
    const path = formatPath(p.path);
    // A value whose variable is missing was already reported; its placeholder text is not the user's mistake.
    if (failedPaths.has(path)) continue;
    problems.push({ ...locate(parsed, p.path, p.at).position, path, message: p.message });
  }
  if (problems.length > 0 || !result.success) throw failWith(opts, problems);
  return resolveSections(result.data, { baseDir: dirname(resolvePath(opts.file)) });
}

export async function loadConfigFile(path: string, env?: Record<string, string | undefined>): Promise<ExporterConfig> {
  const text = await readUtf8File(path);
  return readConfig(text, { file: path, ...(env ? { env } : {}) });
}
