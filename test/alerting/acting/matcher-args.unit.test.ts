// Matchers and durations as typed on the command line and in Telegram, in amtool's syntax.
import { describe, expect, it } from 'vitest';
import {
  durationText,
  matcherText,
  parseDurationArg,
  parseMatcher,
  parseMatchers,
} from '../../../src/alerting/acting/matcherArgs.js';

const value = <T>(r: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('matchers as typed', () => {
  it('reads the four operators, quoted values and escapes', () => {
    expect(value(parseMatcher('node=val-eu-1'))).toEqual({
      name: 'node',
      value: 'val-eu-1',
      isRegex: false,
      isEqual: true,
    });
    expect(value(parseMatcher('node!=a'))).toEqual({ name: 'node', value: 'a', isRegex: false, isEqual: false });
    expect(value(parseMatcher('network=~"main|test"'))).toEqual({
      name: 'network',
      value: 'main|test',
      isRegex: true,
      isEqual: true,
    });
    expect(value(parseMatcher('x!~b.*'))).toEqual({ name: 'x', value: 'b.*', isRegex: true, isEqual: false });
    expect(value(parseMatcher('s="say \\"hi\\""')).value).toBe('say "hi"');
    expect(value(parseMatcher('node=')).value).toBe('');
  });

  it('refuses what is not a matcher, with the reason', () => {
    expect(parseMatcher('node~x')).toEqual({ ok: false, error: expect.stringMatching(/bad matcher "node~x"/) });
    expect(parseMatcher('9x=1').ok).toBe(false);
    expect(parseMatcher('n="open').ok).toBe(false);
    expect(parseMatcher('n=~(').ok).toBe(false);
  });

  it('takes a bare first word as the alert name, as amtool does, and refuses a silence of everything', () => {
    expect(value(parseMatchers(['LedgerNodeDown', 'node=a']))).toEqual([
      { name: 'alertname', value: 'LedgerNodeDown', isRegex: false, isEqual: true },
      { name: 'node', value: 'a', isRegex: false, isEqual: true },
    ]);
    expect(parseMatchers(['node=a', 'Bare']).ok).toBe(false);
    expect(parseMatchers([])).toEqual({ ok: false, error: expect.stringMatching(/at least one matcher/) });
    expect(parseMatchers(['node=~.*'])).toEqual({ ok: false, error: expect.stringMatching(/empty string/) });
    expect(parseMatchers(['node!=x']).ok).toBe(false); // absent labels are "", as in Alertmanager
    expect(parseMatchers(['node!=""']).ok).toBe(true);
  });

  it('writes a matcher back as it reads it', () => {
    for (const text of ['node="a"', 'node!="a b"', 'n=~"x|y"', 'n!~"q\\"r"']) {
      expect(matcherText(value(parseMatcher(text)))).toBe(text);
    }
  });
});

describe('durations as typed', () => {
  it("reads Prometheus durations, amtool's --duration syntax", () => {
    expect(value(parseDurationArg('2h'))).toBe(7_200_000);
    expect(value(parseDurationArg('1h30m'))).toBe(5_400_000);
    expect(value(parseDurationArg('1d'))).toBe(86_400_000);
    expect(value(parseDurationArg('1w'))).toBe(7 * 86_400_000);
    expect(value(parseDurationArg('90s'))).toBe(90_000);
  });

  it('refuses other text and zero', () => {
    for (const bad of ['', '2', '2 hours', 'h', '0m', '1.5h', '-1h', '30m1h'])
      expect(parseDurationArg(bad).ok).toBe(false);
  });

  it('says durations for people', () => {
    expect(durationText(3_600_000)).toBe('1h');
    expect(durationText(5_400_000)).toBe('1h30m');
    expect(durationText(90_061_000)).toBe('1d1h');
    expect(durationText(500)).toBe('500ms');
  });
});
