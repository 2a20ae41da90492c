import { describe, expect, it } from 'vitest';
import { compileAnchored } from '../../../src/alerting/silences/linearRegex.js';
import { compileMatchers, parseMatchers } from '../../../src/alerting/silences/matchers.js';
import { EXPIRED_RETENTION_MS, SilenceStore, type SilenceEvent } from '../../../src/alerting/silences/store.js';
import type { Matcher, PostableSilence } from '../../../src/alerting/silences/types.js';

const T0 = Date.UTC(2026, 10, 28, 12);
const H = 3_600_000;
const api = { user: 'alice', via: 'api' } as const;
const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });
const re = (name: string, value: string, isEqual = true): Matcher => ({ name, value, isRegex: true, isEqual });

function store(alerts: Record<string, Record<string, string>> = {}) {
  const events: SilenceEvent[] = [];
  let n = 0;
  const s = new SilenceStore({
    alertLabels: (fp) => alerts[fp],
    ackMaxMs: 24 * H,
    onEvent: (e) => events.push(e),
    newId: () => `id-${++n}`,
  });
  return { s, events };
}
const silence = (over: Partial<PostableSilence> = {}): PostableSilence => ({
  matchers: [eq('node', 'val-1')],
  startsAt: T0,
  endsAt: T0 + 2 * H,
  createdBy: 'alice',
  comment: 'disk swap',
  ...over,
});

describe('matchers', () => {
  it('match as Alertmanager does: anchored regular expressions, a missing label is the empty string', () => {
    const t = (ms: Matcher[], labels: Record<string, string>) => {
      const test = compileMatchers(ms);
      if (typeof test !== 'function') throw new Error(test.error);
      return test(labels);
    };
    expect(t([eq('node', 'a')], { node: 'a' })).toBe(true);
    expect(t([eq('node', 'a')], { node: 'ab' })).toBe(false);
    expect(t([re('node', 'val-.*')], { node: 'val-eu-1' })).toBe(true);
    expect(t([re('node', 'val')], { node: 'val-eu-1' })).toBe(false); // anchored, not a search
    expect(t([re('node', 'a|b')], { node: 'b' })).toBe(true); // the alternation is grouped inside the anchors
    expect(t([re('node', 'val-.*', false), eq('job', 'x')], { node: 'rpc-1', job: 'x' })).toBe(true);
    expect(t([{ ...eq('zone', ''), isEqual: false }, eq('job', 'x')], { job: 'x' })).toBe(false);
    expect(t([eq('job', 'x'), { ...eq('zone', 'eu'), isEqual: false }], { job: 'x' })).toBe(true);
    expect(t([re('node', '(?s)a.b')], { node: 'a\nb' })).toBe(true);
    expect(compileAnchored('(?i)VAL')).toEqual({ error: 'case-insensitive matching (?i) is not supported' });
  });

  it('refuse a set every label set matches, and say why a matcher is bad', () => {
    expect(compileMatchers([re('node', '.*')])).toEqual({
      error: 'at least one matcher must not match the empty string',
    });
    expect(compileMatchers([eq('bad-name', 'x')])).toEqual({
      error: 'invalid label matcher 0: invalid label name "bad-name"',
    });
    const bad = compileMatchers([eq('a', 'b'), re('node', '(')]);
    expect(typeof bad !== 'function' && bad.error).toMatch(
      /^invalid label matcher 1: invalid regular expression "\(": /,
    );
  });

  it('a catastrophic pattern matches a long input in linear time (no backtracking)', () => {
    const compiled = compileAnchored('(a+)+$');
    expect(compiled).toBeInstanceOf(RegExp);
    const input = `${'a'.repeat(100_000)}b`;
    // A backtracking engine takes 2^100000 steps here; the linear engine returns at all.
    expect((compiled as RegExp).test(input)).toBe(false);
    expect((compiled as RegExp).test('a'.repeat(100_000))).toBe(true);
    const t = compileMatchers([re('node', '(a|aa)+$'), eq('job', 'x')]);
    expect(typeof t === 'function' && t({ node: `${'a'.repeat(50_000)}!`, job: 'x' })).toBe(false);
  });

  it('refuse what cannot run in linear time instead of running it', () => {
    expect(compileAnchored('(a)\\1')).toEqual({ error: 'Cannot be executed in linear time' });
    expect(compileAnchored('a{17}')).toEqual({ error: 'Cannot be executed in linear time' });
    expect(compileAnchored('(?:a|b){20}x')).toEqual({ error: 'Cannot be executed in linear time' });
  });

  it('refuse lookarounds on every Node.js (newer V8 runs lookbehinds; RE2 has none)', () => {
    const refused = { error: 'lookarounds are not supported (nor by Alertmanager: RE2 has none)' };
    for (const p of ['(?<=a)b', '(?<!a)b', 'a(?=b)', 'a(?!b)', 'x|(?<=y)z'])
      expect(compileAnchored(p)).toEqual(refused);
    // Inside a character class or escaped, the same characters are literals.
    expect(compileAnchored('[(?=]+')).toBeInstanceOf(RegExp);
    expect(compileAnchored('\\(\\?=x\\)')).toBeInstanceOf(RegExp);
    expect((compileAnchored('\\(\\?=x\\)') as RegExp).test('(?=x)')).toBe(true);
    expect(compileAnchored('x'.repeat(2_000))).toEqual({ error: 'longer than 1024 characters' });
  });

  it('parse the text form amtool sends as filter', () => {
    expect(parseMatchers('alertname="LedgerNodeDown"')).toEqual([eq('alertname', 'LedgerNodeDown')]);
    expect(parseMatchers('{node=~"val-.*", job!="x"}')).toEqual([
      re('node', 'val-.*'),
      { ...eq('job', 'x'), isEqual: false },
    ]);
    expect(parseMatchers('a!~b')).toEqual([re('a', 'b', false)]);
    expect(parseMatchers('a="q\\"uote"')).toEqual([eq('a', 'q"uote')]);
    expect(parseMatchers('a b')).toHaveProperty('error');
  });
});

describe('SilenceStore', () => {
  it('moves a silence through pending, active and expired, and forgets it 5 days after its end', () => {
    const { s } = store();
    const w = s.upsert(silence({ startsAt: T0 + H, endsAt: T0 + 2 * H }), api, T0);
    expect(w).toEqual({ id: 'id-1' });
    expect(s.get('id-1', T0)?.state).toBe('pending');
    expect(s.silencedBy({ node: 'val-1' }, T0)).toEqual([]);
    expect(s.get('id-1', T0 + H)?.state).toBe('active');
    expect(s.silencedBy({ node: 'val-1', alertname: 'X' }, T0 + H)).toEqual(['id-1']);
    expect(s.silencedBy({ node: 'val-2' }, T0 + H)).toEqual([]);
    expect(s.get('id-1', T0 + 2 * H)?.state).toBe('expired');
    expect(s.silencedBy({ node: 'val-1' }, T0 + 2 * H)).toEqual([]);
    expect(s.list(T0 + 2 * H + EXPIRED_RETENTION_MS - 1)).toHaveLength(1);
    expect(s.list(T0 + 2 * H + EXPIRED_RETENTION_MS)).toHaveLength(0);
  });

  it('answers for a label set again once a silence is added, updated or forgotten (nothing stale remembered)', () => {
    const { s } = store();
    const other = { alertname: 'X', node: 'val-2' };
    s.upsert(silence(), api, T0);
    expect(s.silencedBy(other, T0)).toEqual([]);
    s.upsert(silence({ matchers: [re('node', 'val-[0-9]')] }), api, T0);
    expect(s.silencedBy(other, T0)).toEqual(['id-2']);
    s.upsert(silence({ matchers: [eq('alertname', 'X'), eq('node', 'val-2')] }), api, T0);
    expect(s.silencedBy(other, T0)).toEqual(['id-2', 'id-3']);
    s.expire('id-2', api, T0);
    s.gc(T0 + EXPIRED_RETENTION_MS);
    expect(s.silencedBy(other, T0)).toEqual(['id-3']);
  });

  it('refuses bad silences with Alertmanager reasons and status 400, an unknown id with 404', () => {
    const { s, events } = store();
    expect(s.upsert(silence({ endsAt: T0 }), api, T0)).toEqual({
      status: 400,
      error: 'Failed to create silence: start time must be before end time',
    });
    expect(s.upsert(silence({ startsAt: T0 - 3 * H, endsAt: T0 - H }), api, T0)).toEqual({
      status: 400,
      error: "Failed to create silence: end time can't be in the past",
    });
    expect(s.upsert(silence({ matchers: [] }), api, T0)).toEqual({
      status: 400,
      error: 'invalid silence: at least one matcher required',
    });
    expect(s.upsert(silence({ id: 'nope' }), api, T0)).toEqual({ status: 404, error: 'silence not found' });
    expect(s.expire('nope', api, T0)).toEqual({ status: 404, error: 'silence not found' });
    expect(events).toEqual([]);
  });

  it('updates in place what does not rewrite history, otherwise expires the old and creates a new id', () => {
    const { s, events } = store();
    s.upsert(silence(), api, T0);
    // Active, same matchers and start: a longer end is an update of the same id.
    expect(s.upsert(silence({ id: 'id-1', endsAt: T0 + 4 * H, comment: 'longer' }), api, T0 + H)).toEqual({
      id: 'id-1',
    });
    expect(s.get('id-1', T0 + H)).toMatchObject({ endsAt: T0 + 4 * H, comment: 'longer', updatedAt: T0 + H });
    // Other matchers: a new silence, the old one expired now.
    expect(s.upsert(silence({ id: 'id-1', matchers: [eq('node', 'val-2')] }), api, T0 + H)).toEqual({ id: 'id-2' });
    expect(s.get('id-1', T0 + H)).toMatchObject({ state: 'expired', endsAt: T0 + H });
    expect(s.get('id-2', T0 + H)).toMatchObject({ state: 'active', startsAt: T0 + H });
    expect(events.map((e) => `${e.action} ${e.silence.id} ${e.actor.user}/${e.actor.via}`)).toEqual([
      'create id-1 alice/api',
      'update id-1 alice/api',
      'expire id-1 alice/api',
      'create id-2 alice/api',
    ]);
  });

  it('expires an active silence at now and a pending one entirely; an expired one stays as it is', () => {
    const { s } = store();
    s.upsert(silence(), api, T0);
    s.upsert(silence({ startsAt: T0 + H }), api, T0);
    expect(s.expire('id-1', api, T0 + 60_000)).toEqual({ id: 'id-1' });
    expect(s.get('id-1', T0 + 60_000)).toMatchObject({ state: 'expired', endsAt: T0 + 60_000, startsAt: T0 });
    expect(s.expire('id-2', api, T0 + 60_000)).toEqual({ id: 'id-2' });
    expect(s.get('id-2', T0 + 60_000)).toMatchObject({ state: 'expired', startsAt: T0 + 60_000, endsAt: T0 + 60_000 });
    expect(s.expire('id-1', api, T0 + H)).toEqual({ id: 'id-1' });
    expect(s.get('id-1', T0 + H)?.updatedAt).toBe(T0 + 60_000);
  });

  it('acknowledges exactly one alert’s labels, at most ackMax, and expires the ack once the alert resolves', () => {
    const labels = { alertname: 'LedgerNodeDown', node: 'val-1', severity: 'critical' };
    const { s } = store({ fp1: labels });
    expect(s.ack('fp2', api, 'x', T0)).toMatchObject({ status: 404 });
    expect(s.ack('fp1', api, 'on it', T0)).toEqual({ id: 'id-1' });
    const ack = s.get('id-1', T0)!;
    expect(ack).toMatchObject({ ackOf: 'fp1', comment: 'ack: on it', endsAt: T0 + 24 * H, createdBy: 'alice' });
    expect(ack.matchers).toEqual([eq('alertname', 'LedgerNodeDown'), eq('node', 'val-1'), eq('severity', 'critical')]);
    expect(s.silencedBy(labels, T0 + 1)).toEqual(['id-1']);
    expect(s.silencedBy({ ...labels, node: 'val-2' }, T0 + 1)).toEqual([]);
    // A second ack of the same alert refreshes the first.
    expect(s.ack('fp1', api, 'still on it', T0 + H)).toEqual({ id: 'id-1' });
    expect(s.expireAcks((fp) => fp === 'fp1', T0 + 2 * H)).toEqual([]);
    expect(s.expireAcks(() => false, T0 + 2 * H)).toEqual(['id-1']);
    expect(s.get('id-1', T0 + 2 * H)?.state).toBe('expired');
  });

  it('applies a peer’s copy when it is new or newer, without telling the local change listeners', () => {
    const { s } = store();
    const told: string[] = [];
    s.onChange((x) => told.push(x.id));
    const remote = { id: 'peer-1', ...silence(), updatedAt: T0 };
    expect(s.applyRemote(remote, T0)).toBe(true);
    expect(s.applyRemote({ ...remote, comment: 'older', updatedAt: T0 - 1 }, T0)).toBe(false);
    expect(s.applyRemote({ ...remote, comment: 'newer', updatedAt: T0 + 1 }, T0)).toBe(true);
    expect(s.get('peer-1', T0)?.comment).toBe('newer');
    expect(told).toEqual([]);
    s.expire('peer-1', api, T0 + 5);
    expect(told).toEqual(['peer-1']);
  });
});
