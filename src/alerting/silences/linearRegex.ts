// Regular expressions from requests (silence matchers, API filters) run on V8's linear-time
// engine (the `l` flag): matching costs time proportional to pattern times input, so no pattern
// can stall the process the way `(a+)+$` does a backtracking engine. The engine is switched on
// once, before its first use; it refuses what it cannot run in linear time (backreferences,
// lookarounds, counted repetition above 16), and where it is missing every pattern is refused.
import { setFlagsFromString } from 'node:v8';

/** Longer patterns are refused: compile cost grows with the pattern, and labels are short. */
export const MAX_PATTERN_LENGTH = 1_024;

let available: boolean | undefined;

/** Whether this Node's V8 has the linear engine (switched on at the first call). */
export function linearEngineAvailable(): boolean {
  if (available === undefined) {
    try {
      setFlagsFromString('--enable-experimental-regexp-engine');
      new RegExp('', 'l'); // eslint-disable-line no-invalid-regexp -- the linear engine's flag
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/**
 * The pattern anchored at both ends as Alertmanager (Go's RE2) anchors label matchers, or why it
 * cannot be used. A leading RE2 `(?s)` becomes the JavaScript flag; `(?i)` is refused, the linear
 * engine has no case-insensitive mode (a character class such as `[Vv]al` does the same).
 */
export function compileAnchored(pattern: string): RegExp | { error: string } {
  if (pattern.length > MAX_PATTERN_LENGTH) return { error: `longer than ${MAX_PATTERN_LENGTH} characters` };
  if (!linearEngineAvailable())
    return { error: "this Node.js has no linear-time regular expression engine (V8's `l` flag)" };
  const lead = /^\(\?s\)/.exec(pattern);
  const flags = lead ? 'ls' : 'l';
  const body = lead ? pattern.slice(lead[0].length) : pattern;
  if (/^\(\?[a-zA-Z]*i/.test(body)) return { error: 'case-insensitive matching (?i) is not supported' };
  if (hasLookaround(body)) return { error: 'lookarounds are not supported (nor by Alertmanager: RE2 has none)' };
  try {
    return new RegExp(`^(?:${body})$`, flags);
  } catch (err) {
    const message = (err as Error).message;
    return { error: message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') };
  }
}

/**
 * Whether the pattern has a lookahead or lookbehind outside a character class. Newer V8 runs
 * lookbehinds in linear time and older V8 refuses them: refused here, a matcher means the same on
 * every Node.js and in Alertmanager.
 */
function hasLookaround(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(' && /^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) return true;
  }
  return false;
}
