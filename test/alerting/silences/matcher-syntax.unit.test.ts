// The one parser of matcher text (silences/matchers.ts), as amtool writes matchers: quoting and
// escaping, lists in braces, errors naming the matcher at fault, and the same reading from the
// command line, Telegram's /silence and the API's `filter` parameter.
import { describe, expect, it } from 'vitest';
import { parseMatcher as parseArg } from '../../../src/alerting/acting/matcherArgs.js';
import { filterMatchers } from '../../../src/alerting/api/silencesV2.js';
import { compileMatcher, formatMatcher, parseMatcher, parseMatchers } from '../../../src/alerting/silences/matchers.js';
import type { Matcher } from '../../../src/alerting/silences/types.js';
import { parseCommand } from '../../../src/alerting/telegram/commands.js';

const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });
const valueOf = (text: string) => {
  const m = parseMatcher(text);
  if ('error' in m) throw new Error(m.error);
  return m.value;
};

describe('one matcher: quoting and escaping as amtool', () => {
  it('drops spaces around the operator and around the value, keeps those inside quotes', () => {
    expect(parseMatcher('  node = val-1  ')).toEqual(eq('node', 'val-1'));
    expect(valueOf('node=a b')).toBe('a b');
    expect(valueOf('node=" a b "')).toBe(' a b ');
    expect(valueOf('node=""')).toBe('');
    expect(valueOf('node=')).toBe('');
  });

  it('reads \\" \\\\ and \\n, keeps a backslash before anything else, and a lone trailing one', () => {
    expect(valueOf('s="say \\"hi\\""')).toBe('say "hi"');
    expect(valueOf('p="C:\\\\logs"')).toBe('C:\\logs');
    expect(valueOf('m="two\\nlines"')).toBe('two\nlines');
    expect(valueOf('t="a\\tb"')).toBe('a\\tb');
    expect(valueOf('u=a\\\\b')).toBe('a\\b'); // unquoted values unescape the same
    expect(valueOf('e="end\\\\"')).toBe('end\\');
    expect(valueOf('e=end\\')).toBe('end\\');
  });

  it('takes a regular expression with backslash classes as written (=~"\\d+" is \\d+)', () => {
    const m = parseMatcher('port=~"\\d+"');
    expect(m).toEqual({ name: 'port', value: '\\d+', isRegex: true, isEqual: true });
    const test = compileMatcher(m as Matcher);
    expect(typeof test === 'function' && test({ port: '9710' }) && !test({ port: 'x' })).toBe(true);
  });

  it('refuses with the matcher named and the reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['node~x', /^bad matcher "node~x": expected name=value/],
      ['9node=x', /^bad matcher "9node=x": expected/],
      ['a:b=c', /^bad matcher "a:b=c": expected/],
      ['n="open', /^bad matcher "n=\\"open": unbalanced double quotes/],
      ['n=stray"', /^bad matcher "n=stray\\"": unbalanced double quotes/],
      ['n="in"side"', /^bad matcher "n=\\"in\\"side\\"": unbalanced double quotes/],
      ['n="escaped end\\"', /unbalanced double quotes/],
      ['n=~"("', /^bad matcher "n=~\\"\(\\"": invalid regular expression/],
      ['n=~"(?i)val"', /case-insensitive/],
    ];
    for (const [text, why] of cases) expect(parseMatcher(text)).toEqual({ error: expect.stringMatching(why) });
  });

  it('writes every value back so that it reads the same', () => {
    const values = [
      '',
      'plain',
      'a b',
      ' edge ',
      'q"uote',
      'back\\slash',
      'new\nline',
      'tab\there',
      'a,b',
      '{x}',
      'ü✓',
    ];
    for (const value of values)
      for (const [isRegex, isEqual] of [
        [false, true],
        [false, false],
        [true, true],
        [true, false],
      ] as const) {
        const m: Matcher = { name: 'l', value: isRegex ? value.replace(/[\\{}]/g, '') : value, isRegex, isEqual };
        expect(parseMatcher(formatMatcher(m))).toEqual(m);
        expect(parseMatchers(`{${formatMatcher(m)},x="y"}`)).toEqual([m, eq('x', 'y')]);
      }
    expect(formatMatcher(eq('s', 'say "hi"\n'))).toBe('s="say \\"hi\\"\\n"');
  });
});

describe('matcher lists (the API filter, {a="b",c=~"d"})', () => {
  it('splits at commas outside quotes only, in braces or not, a trailing comma allowed', () => {
    expect(parseMatchers('{a="x,y", b=~"c|d"}')).toEqual([eq('a', 'x,y'), { ...eq('b', 'c|d'), isRegex: true }]);
    expect(parseMatchers('a="q\\",r",b=c')).toEqual([eq('a', 'q",r'), eq('b', 'c')]);
    expect(parseMatchers('a=b,')).toEqual([eq('a', 'b')]);
    expect(parseMatchers('')).toEqual([]);
    expect(parseMatchers('{}')).toEqual([]);
  });

  it('names the bad matcher and the list it is in', () => {
    expect(parseMatchers('a="1",b~2')).toEqual({
      error: 'bad matcher "b~2": expected name=value, name!=value, name=~regex or name!~regex (in "a=\\"1\\",b~2")',
    });
    expect(parseMatchers('a=1,,b=2')).toEqual({
      error: expect.stringMatching(/^bad matcher "": expected .* \(in "a=1,,b=2"\)$/),
    });
    expect(parseMatchers('{a="1"')).toEqual({
      error: expect.stringMatching(/^bad matchers "\{a=\\"1\\"": missing closing "\}"/),
    });
    expect(parseMatchers('a="1,b=2')).toEqual({
      error: expect.stringMatching(/^bad matcher "a=\\"1,b=2": unbalanced/),
    });
  });
});

describe('one reading wherever matchers are typed', () => {
  it('the command line, Telegram /silence and the API filter read the same text alike', () => {
    for (const text of ['node="a b"', 'msg="say \\"hi\\""', 'port=~"\\d+"', 'p!="C:\\\\x"', 'net!~main|test']) {
      const m = parseMatcher(text) as Matcher;
      expect('error' in m).toBe(false);
      expect(parseArg(text)).toEqual({ ok: true, value: m });
      expect(parseCommand(`/silence LedgerNodeDown ${text} 2h`)).toMatchObject({
        matchers: [eq('alertname', 'LedgerNodeDown'), m],
      });
      expect(filterMatchers(new URLSearchParams({ filter: text }))).toEqual([m]);
    }
  });

  it('a bad matcher is refused with the same words everywhere', () => {
    for (const text of ['n=~"("', 'node~x']) {
      const error = (parseMatcher(text) as { error: string }).error;
      expect(error).toContain(JSON.stringify(text));
      expect(parseArg(text)).toEqual({ ok: false, error });
      expect(parseCommand(`/silence ${text} 2h`)).toEqual({ kind: 'bad', error });
      expect(filterMatchers(new URLSearchParams({ filter: text }))).toEqual({ status: 400, body: error });
    }
  });
});
