// What the config parser refuses, for the config unit tests: a config text from its lines, the
// ConfigError a text gives, and its problems as the operator reads them (file:line:col: key: ...).
import { ConfigError, formatProblem, parseConfig } from '../../src/config/index.js';

/** A config file's text from its lines. */
export const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

export interface ParseAs {
  /** The config file's path, as the problems name it (default `fleet.yaml`). */
  file?: string;
  env?: Record<string, string>;
}

/** The ConfigError parseConfig throws for `text`, or undefined when the text parses. */
function refusal(text: string, as: ParseAs): ConfigError | undefined {
  try {
    parseConfig(text, { file: as.file ?? 'fleet.yaml', env: as.env ?? {} });
    return undefined;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
}

/** The ConfigError parseConfig throws for `text`; throws when the text parses. */
export function configError(text: string, as: ParseAs = {}): ConfigError {
  const e = refusal(text, as);
  if (!e) throw new Error('expected a ConfigError');
  return e;
}

/** The problems of `text` as formatted lines; throws when the text parses. */
export function configProblems(text: string, as: ParseAs = {}): string[] {
  return configError(text, as).problems.map(formatProblem);
}

/** The problems of `text` as formatted lines, none when it parses. */
export function configProblemsOrNone(text: string, as: ParseAs = {}): string[] {
  return refusal(text, as)?.problems.map(formatProblem) ?? [];
}
