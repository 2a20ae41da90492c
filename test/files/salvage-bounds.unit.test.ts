// A salvage read is bounded whatever the damaged text holds: nesting deeper than any file of ours
// is read as a cut at the first bracket too deep (no recursion to overflow the stack), and what
// came before it is still recovered.
import { describe, expect, it } from 'vitest';
import { salvageJson, type JsonPath, type PathRole } from '../../src/files/jsonSalvage.js';
import { salvageAlertState } from '../../src/alerting/notify/stateSalvage.js';

const role = (p: JsonPath): PathRole =>
  p.length === 1 && p[0] === 'items' ? 'section' : p.length === 2 && p[0] === 'items' ? 'value' : undefined;

describe('salvageJson on deeply nested damage', () => {
  it.each([6_000, 200_000])('reads %i nested arrays cut short without overflowing the stack', (depth) => {
    const text = `{"items":[{"a":1},{"b":[${'['.repeat(depth)}`;
    const s = salvageJson(text, role);
    expect(s.values).toEqual([{ path: ['items', 0], value: { a: 1 } }]);
    expect(s.broken).toEqual([['items', 1]]);
    expect(s.stoppedAt?.why).toMatch(/nested deeper than \d+/);
  });

  it('reads a whole but absurdly nested value as damage too (never recursing into it)', () => {
    const nested = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const s = salvageJson(`{"items":[{"a":1},${nested},{"c":3}]}`, role);
    expect(s.values.map((v) => v.value)).toEqual([{ a: 1 }]);
    expect(s.stoppedAt?.offset).toBeGreaterThan(0);
  });

  it('salvages the alert state file of the report (cut inside ~6,000 nested arrays)', () => {
    const text =
      '{"version":1,"savedAt":1764255600000,"dispatcher":{"unconfirmed":{},"log":{"g1":{"firing":["a"],' +
      '"resolved":[],"at":1764255500000},"g2":{"firing":' +
      '['.repeat(6_000);
    const s = salvageAlertState(text);
    expect(s.recovered.log).toBe(1);
    expect(Object.keys(s.state.dispatcher.log)).toEqual(['g1']);
    expect(s.complete.log).toBe(false);
  });
});
