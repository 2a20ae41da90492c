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

/** `name="value"` with the operator; how logs, the page and `filter` write a matcher. */
export function formatMatcher(m: Matcher): string {
  const op = m.isEqual ? (m.isRegex ? '=~' : '=') : m.isRegex ? '!~' : '!=';
  return `${m.name}${op}${JSON.stringify(m.value)}`;
}

const MATCHER_TEXT = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|([^",}\s]*))\s*(?:,|$)/;

/**
 * Matchers written as text: `a="b"`, `a=~"x|y"`, `a=b`, several separated by commas, optionally
 * in braces (Alertmanager's `filter` parameter and amtool's arguments).
 */
export function parseMatchers(text: string): Matcher[] | { error: string } {
  let rest = text.trim();
  if (rest.startsWith('{')) {
    if (!rest.endsWith('}')) return { error: `bad matcher ${JSON.stringify(text)}: missing closing "}"` };
    rest = rest.slice(1, -1).trim();
  }
  const out: Matcher[] = [];
  while (rest.length > 0) {
    const m = MATCHER_TEXT.exec(rest);
    if (!m) return { error: `bad matcher ${JSON.stringify(text)}: expected name="value" with =, !=, =~ or !~` };
    let value = m[4] ?? '';
    if (m[3] !== undefined) {
      try {
        value = JSON.parse(`"${m[3]}"`) as string;
      } catch {
        return { error: `bad matcher ${JSON.stringify(text)}: bad escape in the value` };
      }
    }
    const op = m[2]!;
    out.push({ name: m[1]!, value, isRegex: op.endsWith('~'), isEqual: !op.startsWith('!') });
    rest = rest.slice(m[0].length).trim();
  }
  return out;
}
