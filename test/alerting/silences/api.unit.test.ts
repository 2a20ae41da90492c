import { describe, expect, it } from 'vitest';
import { listAlertsV2, type FiringAlert } from '../../../src/alerting/api/alertsV2.js';
import type { ApiCall } from '../../../src/alerting/api/call.js';
import { deleteSilence, getSilence, listSilences, postSilence } from '../../../src/alerting/api/silencesV2.js';
import { SilenceStore } from '../../../src/alerting/silences/store.js';

const T0 = Date.UTC(2026, 10, 28, 12);
const iso = (ms: number) => new Date(ms).toISOString();

function rig() {
  let n = 0;
  const store = new SilenceStore({ alertLabels: () => undefined, ackMaxMs: 1, newId: () => `id-${++n}` });
  let saved = 0;
  const deps = { silences: store, wallNow: () => T0, saved: () => Promise.resolve(void saved++) };
  const call = (over: Partial<ApiCall> = {}): ApiCall => ({
    path: {},
    params: new URLSearchParams(),
    body: undefined,
    user: 'alice',
    headers: {},
    ...over,
  });
  return { store, deps, call, saves: () => saved };
}
const body = (over: Record<string, unknown> = {}) => ({
  matchers: [{ name: 'node', value: 'val-1', isRegex: false, isEqual: true }],
  startsAt: iso(T0),
  endsAt: iso(T0 + 3_600_000),
  createdBy: 'alice',
  comment: 'swap',
  ...over,
});

describe('Alertmanager API v2 handlers', () => {
  it('POST answers {silenceID} once saved; GET and the list answer gettableSilence shapes', async () => {
    const { deps, call, saves } = rig();
    expect(await postSilence(deps, call({ body: body() }))).toEqual({ status: 200, body: { silenceID: 'id-1' } });
    expect(saves()).toBe(1);
    const got = getSilence(deps, call({ path: { id: 'id-1' } }));
    expect(got).toEqual({
      status: 200,
      body: {
        id: 'id-1',
        status: { state: 'active' },
        updatedAt: iso(T0),
        matchers: [{ name: 'node', value: 'val-1', isRegex: false, isEqual: true }],
        startsAt: iso(T0),
        endsAt: iso(T0 + 3_600_000),
        createdBy: 'alice',
        comment: 'swap',
        annotations: {},
      },
    });
    expect(getSilence(deps, call({ path: { id: 'nope' } }))).toEqual({ status: 404 });
    expect(await deleteSilence(deps, call({ path: { id: 'nope' } }))).toEqual({ status: 404 });
    expect(await deleteSilence(deps, call({ path: { id: 'id-1' } }))).toEqual({ status: 200 });
    expect(listSilences(deps, call()).body).toMatchObject([{ id: 'id-1', status: { state: 'expired' } }]);
  });

  it('refuses bad bodies with 400 and the reason, an unknown id with 404', async () => {
    const { deps, call } = rig();
    expect(await postSilence(deps, call({ body: body({ createdBy: undefined }) }))).toEqual({
      status: 400,
      body: 'createdBy in body is required',
    });
    expect(await postSilence(deps, call({ body: body({ endsAt: 'tomorrow' }) }))).toEqual({
      status: 400,
      body: 'endsAt in body: must be an RFC 3339 date-time: "tomorrow"',
    });
    const regex = await postSilence(
      deps,
      call({ body: body({ matchers: [{ name: 'node', value: '(a+)+\\1', isRegex: true, isEqual: true }] }) }),
    );
    expect(regex).toEqual({
      status: 400,
      body:
        'invalid silence: invalid label matcher 0: ' +
        'invalid regular expression "(a+)+\\\\1": Cannot be executed in linear time',
    });
    expect(await postSilence(deps, call({ body: body({ id: 'unknown' }) }))).toEqual({
      status: 404,
      body: 'silence not found',
    });
  });

  it('a replication POST keeps the peer’s id and updatedAt, newest wins; a plain POST then updates it', async () => {
    const { deps, call, store } = rig();
    const peer = { ...body(), id: 'peer-1', updatedAt: iso(T0 - 1_000) };
    const headers = { 'x-ledger-replication': '1' };
    expect(await postSilence(deps, call({ body: peer, headers }))).toEqual({
      status: 200,
      body: { silenceID: 'peer-1' },
    });
    expect(store.get('peer-1', T0)).toMatchObject({ updatedAt: T0 - 1_000, createdBy: 'alice' });
    await postSilence(deps, call({ body: { ...peer, comment: 'older', updatedAt: iso(T0 - 2_000) }, headers }));
    expect(store.get('peer-1', T0)?.comment).toBe('swap');
    expect(await postSilence(deps, call({ body: { ...body({ id: 'peer-1', comment: 'mine' }) } }))).toEqual({
      status: 200,
      body: { silenceID: 'peer-1' },
    });
    expect(store.get('peer-1', T0)).toMatchObject({ comment: 'mine', updatedAt: T0 });
  });

  it('filters silences as Alertmanager does (each filter matcher one of the silence’s), alerts by state', async () => {
    const { deps, call } = rig();
    await postSilence(deps, call({ body: body() }));
    await postSilence(
      deps,
      call({ body: body({ matchers: [{ name: 'job', value: 'x', isRegex: false, isEqual: true }] }) }),
    );
    const ids = (f: string) =>
      (listSilences(deps, call({ params: new URLSearchParams({ filter: f }) })).body as Array<{ id: string }>).map(
        (s) => s.id,
      );
    expect(ids('node="val-1"')).toEqual(['id-1']);
    expect(ids('job=x')).toEqual(['id-2']);
    expect(ids('node=~"val-1"')).toEqual([]);
    expect(listSilences(deps, call({ params: new URLSearchParams({ filter: 'a b' }) })).status).toBe(400);

    const alert = (node: string, silences: string[]): FiringAlert => ({
      fingerprint: node,
      labels: { alertname: 'LedgerNodeDown', node },
      annotations: {},
      startsAt: T0,
      receivers: ['pager'],
      groupBy: ['alertname'],
      routeKey: '',
      muting: silences.length > 0 ? { silences } : undefined,
    });
    const alerts = {
      firing: () => [alert('a', []), alert('b', ['id-1'])],
      wallNow: () => T0,
      resolveAfterMs: () => 60_000,
      generatorUrl: 'http://x',
    };
    const states = (q: Record<string, string>) =>
      (
        listAlertsV2(alerts, call({ params: new URLSearchParams(q) })).body as Array<{
          fingerprint: string;
          status: { state: string; silencedBy: string[] };
        }>
      ).map((a) => `${a.fingerprint}:${a.status.state}:${a.status.silencedBy.join(',')}`);
    expect(states({})).toEqual(['a:active:', 'b:suppressed:id-1']);
    expect(states({ silenced: 'false' })).toEqual(['a:active:']);
    expect(states({ active: 'false' })).toEqual(['b:suppressed:id-1']);
    expect(states({ filter: 'node="b"' })).toEqual(['b:suppressed:id-1']);
    expect(states({ receiver: 'pag.*' })).toHaveLength(2);
    expect(states({ receiver: 'other' })).toEqual([]);
  });
});
