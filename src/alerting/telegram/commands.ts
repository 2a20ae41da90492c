// What a Telegram message or button tap asks for, read without any I/O: `/status`, `/alerts`,
// `/silences`, `/silence <matcher>... <duration> [comment]`, `/unsilence <id>`, `/ack`, `/help`
// (each also as `/cmd@BotName`, as Telegram sends them in groups), and the inline buttons'
// callback data `a:<fingerprint>` (acknowledge) and `s:<fingerprint>` (silence 1h).
import type { Matcher } from '../silences/types.js';
import { parseDurationArg, parseMatchers } from '../acting/matcherArgs.js';

export type ChatCommand =
  | { kind: 'status' | 'alerts' | 'silences' | 'help' | 'ack' }
  | { kind: 'silence'; matchers: Matcher[]; durationMs: number; comment: string }
  | { kind: 'unsilence'; ids: string[] }
  /** A command with bad arguments: the reason goes back to the chat. */
  | { kind: 'bad'; error: string };

export const HELP_TEXT = [
  '/status: alerts firing, pending and silenced',
  '/alerts: the firing alerts, with their fingerprints',
  '/silences: the active and pending silences',
  '/silence <matcher>... <duration> [comment]: e.g. /silence node=val-eu-1 2h disk swap',
  '/unsilence <id>: expire a silence',
  '/ack: as a reply to an alert message, acknowledge its alerts until they resolve',
  'Buttons on alert messages: Acknowledge, Silence 1h.',
].join('\n');

/** A button's action and the alert it names. */
export interface ButtonTap {
  action: 'ack' | 'silence1h';
  fingerprint: string;
}

const FINGERPRINT = /^[0-9a-f]{1,32}$/;

export const ackData = (fingerprint: string) => `a:${fingerprint}`;
export const silenceData = (fingerprint: string) => `s:${fingerprint}`;

export function parseButton(data: string | undefined): ButtonTap | undefined {
  const m = /^([as]):(.+)$/.exec(data ?? '');
  if (!m || !FINGERPRINT.test(m[2]!)) return undefined;
  return { action: m[1] === 'a' ? 'ack' : 'silence1h', fingerprint: m[2]! };
}

/** Words of a command line; double quotes keep spaces (`comment="two words"`, `"a b"`). */
export function words(text: string): string[] {
  return [...text.matchAll(/(?:[^\s"]+|"(?:[^"\\]|\\.)*")+/g)].map((m) => m[0]);
}

/**
 * The command of a message's text, or undefined when the text is not a command for us (ordinary
 * chat, or a command addressed to another bot: `/status@OtherBot`).
 */
export function parseCommand(text: string, botUsername?: string): ChatCommand | undefined {
  const m = /^\/([a-zA-Z_]+)(?:@([A-Za-z0-9_]+))?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  if (m[2] && botUsername && m[2].toLowerCase() !== botUsername.toLowerCase()) return undefined;
  const name = m[1]!.toLowerCase();
  const args = words(m[3] ?? '');
  switch (name) {
    case 'status':
    case 'alerts':
    case 'silences':
    case 'help':
    case 'start':
    case 'ack':
      return { kind: name === 'start' ? 'help' : name };
    case 'silence':
      return silenceCommand(args);
    case 'unsilence':
      return args.length > 0
        ? { kind: 'unsilence', ids: args }
        : { kind: 'bad', error: 'usage: /unsilence <id> (the ids are in /silences)' };
    default:
      return { kind: 'bad', error: `unknown command /${name}; /help lists them` };
  }
}

/** `/silence <matcher>... <duration> [comment]`: the duration is the first word after the matchers that is one. */
function silenceCommand(args: string[]): ChatCommand {
  const usage = 'usage: /silence <matcher>... <duration> [comment], e.g. /silence node=val-eu-1 2h disk swap';
  const at = args.findIndex((w, i) => i > 0 && parseDurationArg(w).ok);
  if (at < 0) return { kind: 'bad', error: args.length === 0 ? usage : `no duration given; ${usage}` };
  const matchers = parseMatchers(args.slice(0, at));
  if (!matchers.ok) return { kind: 'bad', error: matchers.error };
  const duration = parseDurationArg(args[at]!);
  if (!duration.ok) return { kind: 'bad', error: duration.error };
  const comment = args
    .slice(at + 1)
    .join(' ')
    .replace(/^"([\s\S]*)"$/, '$1');
  return { kind: 'silence', matchers: matchers.value, durationMs: duration.value, comment };
}
