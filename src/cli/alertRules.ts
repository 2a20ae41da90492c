// `ledger-fleet-exporter alert-rules --config <file>`: the Prometheus rules file for one
// deployment, with its config's `alerting.rules` and runbook links applied exactly as the built-in
// engine applies them, so a Prometheus beside the engine alerts on the same thresholds. The file
// is self-sufficient: the recording rules whose series the alerts read come with it, so loaded
// alone every alert can fire. The rules go to stdout (redirect them to a file); problems go to
// stderr, with a non-zero exit. The rules need no secret: variables the environment lacks (receiver
// URLs and keys) are not asked for, only named on stderr.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError, formatProblem, parseConfigWithoutSecrets, unreadableConfigLine } from '../config/index.js';
import { ALERT_DEFINITIONS, DEFAULT_RUNBOOK_BASE } from '../alerting/rules/definitions/index.js';
import { RECORDING_GROUP, renderRecordingGroup } from '../recording/rules.js';
import { renderRulesFile } from '../alerting/rules/rulesFile.js';

export const ALERT_RULES_USAGE = 'usage: ledger-fleet-exporter alert-rules --config <file.yaml>';

export interface AlertRulesOutput {
  /** The rules file text. */
  write(text: string): void;
  /** One problem per line. */
  problem(line: string): void;
  /** What the user may want to know beside the rules (variables left unset); stderr too. */
  note?(line: string): void;
}

/**
 * Exit code 0 with the rules written, 1 when the config has problems, 2 when it cannot be read; throws on bad
 * arguments.
 */
export async function runAlertRulesCli(argv: string[], out: AlertRulesOutput): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } }, strict: true });
  if (!values.config) throw new Error(ALERT_RULES_USAGE);
  let config;
  try {
    const read = parseConfigWithoutSecrets(await readFile(values.config, 'utf8'), { file: values.config });
    config = read.config;
    if (read.unset.length > 0)
      out.note?.(
        `${values.config}: not needed for the rules, unset: ${read.unset.join(', ')} ` +
          `(the exporter needs ${read.unset.length === 1 ? 'it' : 'them'})`,
      );
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) out.problem(formatProblem(p));
      return 1;
    }
    if ((err as NodeJS.ErrnoException).code === undefined) throw err;
    out.problem(unreadableConfigLine(values.config, err));
    return 2;
  }
  out.write(
    selfSufficientRules(
      renderRulesFile(config.alerting?.runbookBase ?? DEFAULT_RUNBOOK_BASE, ALERT_DEFINITIONS, config.alerting?.rules),
    ),
  );
  return 0;
}

const NOTE = `# Written by \`ledger-fleet-exporter alert-rules\`: this deployment's alerting rules followed by the
# recording rules they read (group ${RECORDING_GROUP}). Load this file alone, instead of the
# repository's alerts/ledger-fleet-exporter.rules.yml and .recording.yml (not beside them: the
# recording group would be evaluated twice).
#
`;

/** The alerting rules file with the recording group appended, and a note saying so. */
export function selfSufficientRules(alertingRules: string): string {
  return `${NOTE}${alertingRules}${renderRecordingGroup()}`;
}
