// Alertmanager's label matchers: `=`, `!=`, `=~`, `!~`, regular expressions anchored at both
// ends; a missing label matches as the empty string. Compiled once per silence; the text form
// (`name="value"`, `{a=~"b.*",c!="d"}`) is what amtool sends as `filter` and what logs show.
import type { Labels } from '../rules/types.js';
import type { Matcher } from './types.js';
import { compileAnchored } from './linearRegex.js';

export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export type LabelTest = (labels: Labels) => boolean;

/** One matcher as a test, or why it is not a valid matcher. */
export function compileMatcher(m: Matcher): LabelTest | { error: string } {
  if (!LABEL_NAME.test(m.name)) return { error: `invalid label name ${JSON.stringify(m.name)}` };
  if (!m.isRegex) {
    return m.isEqual ? (l) => (l[m.name] ?? '') === m.value : (l) => (l[m.name] ?? '') !== m.value;
  }
  const re = compileAnchored(m.value);
  if (!(re instanceof RegExp)) return { error: `invalid regular expression ${JSON.stringify(m.value)}: ${re.error}` };
  return m.isEqual ? (l) => re.test(l[m.name] ?? '') : (l) => !re.test(l[m.name] ?? '');
}

/** Every matcher as one test (all must match), or Alertmanager's reason for refusing the set. */
export function compileMatchers(ms: readonly Matcher[]): LabelTest | { error: string } {
  if (ms.length === 0) return { error: 'at least one matcher required' };
  const tests: LabelTest[] = [];
  for (const [i, m] of ms.entries()) {
    const t = compileMatcher(m);
    if (typeof t !== 'function') return { error: `invalid label matcher ${i}: ${t.error}` };
    tests.push(t);
  }
  // A silence every label set matches (all matchers accept the empty string) would mute everything.
  if (tests.every((t) => t({}))) return { error: 'at least one matcher must not match the empty string' };
  return (labels) => tests.every((t) => t(labels));
}

/**
 * `name="value"` with the operator; how logs, the page, the CLI and `filter` write a matcher. The
 * value escaped as Alertmanager writes it (`\\`, `\"`, `\n`), so parseMatcher reads it back as it was.
 */
export function formatMatcher(m: Matcher): string {
  const op = m.isEqual ? (m.isRegex ? '=~' : '=') : m.isRegex ? '!~' : '!=';
  return `${m.name}${op}"${m.value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`;
}

// Alertmanager's classic matcher syntax (pkg/labels/parse.go, what amtool 0.25 reads): a name, an
// operator, and the value with the spaces around it dropped, in double quotes or not.
const MATCHER_PARTS = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*([\s\S]*?)\s*$/;
const SYNTAX = 'expected name=value, name!=value, name=~regex or name!~regex';

/**
 * One matcher as people type it: `node=val-1`, `node!="a b"`, `net=~"main|test"`, `x!~b.*`.
 * Unescaping as Alertmanager's: `\"`, `\\` and `\n` are what they say, a backslash before
 * anything else stays a backslash (so `=~"\d+"` is the regular expression \d+), and a double
 * quote is allowed only closing a value that opened with one. A regular expression must compile
 * on the linear engine the silences match with.
 */
export function parseMatcher(text: string): Matcher | { error: string } {
  const bad = (why: string) => ({ error: `bad matcher ${JSON.stringify(text)}: ${why}` });
  const parts = MATCHER_PARTS.exec(text);
  if (!parts) return bad(SYNTAX);
  const [, name, op, raw] = parts as unknown as [string, string, string, string];
  const value = unescapeValue(raw);
  if (value === undefined) return bad('unbalanced double quotes in the value (write \\" for a quote inside it)');
  const m: Matcher = { name, value, isRegex: op.endsWith('~'), isEqual: !op.startsWith('!') };
  const test = compileMatcher(m);
  return typeof test === 'function' ? m : bad(test.error);
}

/** The value of a matcher as typed, unescaped; undefined when its double quotes do not balance. */
function unescapeValue(raw: string): string | undefined {
  const quoted = raw.startsWith('"');
  const body = quoted ? raw.slice(1) : raw;
  let out = '';
  let closed = !quoted;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    const last = i === body.length - 1;
    if (c === '\\' && !last) {
      const next = body[++i]!;
      out += next === 'n' ? '\n' : next === '"' || next === '\\' ? next : `\\${next}`;
    } else if (c === '"') {
      if (closed || !last) return undefined;
      closed = true;
    } else out += c;
  }
  return closed ? out : undefined;
}

/**
 * Matchers written as one text, separated by commas outside double quotes, optionally in braces:
 * `{a="b",c=~"d|e"}` (Alertmanager's `filter` parameter). Each is read by parseMatcher; an error
 * names the matcher at fault.
 */
export function parseMatchers(text: string): Matcher[] | { error: string } {
  let rest = text.trim();
  if (rest.startsWith('{')) {
    if (!rest.endsWith('}')) return { error: `bad matchers ${JSON.stringify(text)}: missing closing "}"` };
    rest = rest.slice(1, -1);
  }
  const out: Matcher[] = [];
  if (rest.trim() === '') return out;
  const tokens = splitOutsideQuotes(rest);
  for (const [i, token] of tokens.entries()) {
    if (i === tokens.length - 1 && token.trim() === '' && i > 0) break; // a trailing comma
    const m = parseMatcher(token.trim());
    if ('error' in m) return tokens.length > 1 ? { error: `${m.error} (in ${JSON.stringify(text)})` } : m;
    out.push(m);
  }
  return out;
}

/** `a="x,y",b=c` -> [`a="x,y"`, `b=c`]: commas inside double quotes (after `\"` too) stay. */
function splitOutsideQuotes(text: string): string[] {
  const tokens: string[] = [];
  let token = '';
  let inQuotes = false;
  let escaped = false;
  for (const c of text) {
    if (c === ',' && !inQuotes) {
      tokens.push(token);
      token = '';
      continue;
    }
    if (c === '"' && !escaped) inQuotes = !inQuotes;
    escaped = c === '\\' && !escaped;
    token += c;
  }
  tokens.push(token);
  return tokens;
}
