// `check-config <file>`: exit 0 valid, 1 invalid (every problem printed), 2 unreadable file.
// `--no-secrets`: variables the environment lacks are named, not problems (a CI job or a laptop
// checking a config whose receiver URLs and keys only the server has).

import { checkEvidenceDir } from '../evidence/check.js';
import { ConfigError, formatProblem, unreadableConfigLine } from './problems.js';
import { parseConfig, parseConfigWithoutSecrets } from './parse.js';
import { loadAllSections } from './sections/index.js';
import { readUtf8File } from '../files/utf8.js';

export async function runCheckConfig(
  path: string,
  out: (line: string) => void,
  env?: Record<string, string | undefined>,
  opts: { noSecrets?: boolean } = {},
): Promise<number> {
  let text: string;
  try {
    text = await readUtf8File(path);
  } catch (e) {
    out(unreadableConfigLine(path, e));
    return 2;
  }
  await loadAllSections();
  try {
    const parseOpts = { file: path, ...(env ? { env } : {}) };
    const { config, unset } = opts.noSecrets
      ? parseConfigWithoutSecrets(text, parseOpts)
      : { config: parseConfig(text, parseOpts), unset: [] };
    // The schema cannot know the disk: an evidence directory we cannot write is a start-up failure.
    const dirProblem = await checkEvidenceDir(config.evidence.dir);
    if (dirProblem) {
      out(`${path}: evidence.dir: ${dirProblem}`);
      out(`${path}: 1 problem found`);
      return 1;
    }
    const networks = new Set(config.nodes.map((n) => n.network)).size;
    out(
      `${path}: OK (${config.nodes.length} node${config.nodes.length === 1 ? '' : 's'} in ${networks} ` +
        `network${networks === 1 ? '' : 's'})`,
    );
    if (unset.length > 0)
      out(
        `${path}: unset, not checked: ${unset.join(', ')} ` +
          `(the exporter needs ${unset.length === 1 ? 'it' : 'them'} to start)`,
      );
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const p of e.problems) out(formatProblem(p));
    out(`${path}: ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'} found`);
    const hint = unsetVariablesHint(
      e.problems.map((p) => p.message),
      path,
    );
    if (hint)
      out(
        `${hint}\n${path}: or check everything else without them: ` +
          `ledger-fleet-exporter check-config --no-secrets ${path}`,
      );
    return 1;
  }
}

/**
 * How to set the variables a config reads and the environment lacks, as a command line to copy
 * (the shipped examples read some): undefined when none is missing.
 */
export function unsetVariablesHint(
  messages: string[],
  path: string,
  args = `check-config ${path}`,
): string | undefined {
  const names = [...new Set(messages.flatMap((m) => /^environment variable "([^"]+)" is not set/.exec(m)?.[1] ?? []))];
  if (names.length === 0) return undefined;
  const example = names.map((n) => `${n}=...`).join(' ');
  return (
    `${path}: the config reads ${names.length === 1 ? 'a variable' : 'variables'} from the environment; set ` +
    `${names.length === 1 ? 'it' : 'them'}, e.g.: ${example} ledger-fleet-exporter ${args}`
  );
}
