// Receiver payloads (Alertmanager push and webhook v4, Slack, PagerDuty) and the per-receiver
// queue's retry policy, over an injected send function and sleep.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ANSWER_EXCERPT_CHARS, answerExcerpt, httpSend } from '../../../src/alerting/notify/sender.js';
import { HttpClient } from '../../../src/http/client.js';
import { Secrets } from '../../../src/redact.js';
import type { Notification, NotifiedAlert } from '../../../src/alerting/notify/notification.js';
import {
  ReceiverQueue,
  backoffMs,
  DEFAULT_RETRY,
  type DeliveryReport,
  type DeliveryOutcome as SendOutcome,
} from '../../../src/alerting/notify/queue.js';
import type { OutboundRequest, PayloadContext, ReceiverSpec } from '../../../src/alerting/receivers/kind.js';
import { deliveryParts, materializeReceiver } from '../../../src/alerting/receivers/materialize.js';
import { dedupKey } from '../../../src/alerting/receivers/pagerduty.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const ctx = { externalUrl: 'https://fleet.example.org', now: T0 };

function notified(node: string, status: 'firing' | 'resolved' = 'firing'): NotifiedAlert {
  return {
    id: `id-${node}-0123456789abcdef`,
    status,
    labels: { alertname: 'LedgerNodeDown', severity: 'critical', node, network: 'main' },
    annotations: {
      summary: `Ledger node ${node} (main) is down`,
      description: `Node ${node} <down>`,
      runbook_url: 'https://git.example.org/RUNBOOKS.md#ledgernodedown',
    },
    startsAt: T0 - 60_000,
    ...(status === 'resolved' ? { endsAt: T0 - 1000 } : {}),
  };
}

function note(alerts: NotifiedAlert[], receiver = 'r'): Notification {
  return {
    receiver,
    groupKey: '0:{alertname="LedgerNodeDown",network="main"}',
    groupLabels: { alertname: 'LedgerNodeDown', network: 'main' },
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    alerts,
    createdAt: T0,
  };
}

/** The HTTP kinds deliver each part as a POST. */
const buildRequests = (spec: ReceiverSpec, n: Notification, c: PayloadContext) =>
  deliveryParts(spec, n, c) as OutboundRequest[];
const body = (r: OutboundRequest) => JSON.parse(r.body) as Record<string, unknown>;

describe('payloads', () => {
  it('alertmanager: POST /api/v2/alerts to each URL, firing for 4 min, resolved ends then, auth header', () => {
    const spec: ReceiverSpec = {
      name: 'am',
      kind: 'alertmanager',
      urls: ['http://a:9093/', 'http://b:9093/am'],
      bearerToken: 'tok-1',
    };
    const reqs = buildRequests(spec, note([notified('a'), notified('b', 'resolved')]), ctx);
    expect(reqs.map((r) => r.url)).toEqual(['http://a:9093/api/v2/alerts', 'http://b:9093/am/api/v2/alerts']);
    expect(reqs[0]!.headers.authorization).toBe('Bearer tok-1');
    expect(reqs[0]!.label).not.toContain('9093');
    const alerts = JSON.parse(reqs[0]!.body) as Array<Record<string, unknown>>;
    expect(alerts[0]).toEqual({
      labels: notified('a').labels,
      annotations: notified('a').annotations,
      startsAt: new Date(T0 - 60_000).toISOString(),
      endsAt: new Date(T0 + 4 * 60_000).toISOString(),
      generatorURL: 'https://fleet.example.org/api/alerts?alertname=LedgerNodeDown',
    });
    expect(alerts[1]!.endsAt).toBe(new Date(T0 - 1000).toISOString());
    const basic = buildRequests(
      { name: 'am', kind: 'alertmanager', urls: ['http://a'], basicAuth: { username: 'u', password: 'p:w' } },
      note([notified('a')]),
      ctx,
    );
    expect(basic[0]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p:w').toString('base64')}`);
  });

  it('webhook: the Alertmanager webhook payload, version "4", with custom headers', () => {
    const [req] = buildRequests(
      { name: 'hook', kind: 'webhook', url: 'https://ops/hook', headers: { authorization: 'Token x' } },
      note([notified('a'), notified('b', 'resolved')]),
      ctx,
    );
    expect(req!.headers).toEqual({ 'content-type': 'application/json', authorization: 'Token x' });
    const p = body(req!);
    expect(Object.keys(p).sort()).toEqual([
      'alerts',
      'commonAnnotations',
      'commonLabels',
      'externalURL',
      'groupKey',
      'groupLabels',
      'receiver',
      'status',
      'truncatedAlerts',
      'version',
    ]);
    expect(p).toMatchObject({
      version: '4',
      status: 'firing',
      receiver: 'hook',
      externalURL: ctx.externalUrl,
      groupLabels: { alertname: 'LedgerNodeDown', network: 'main' },
    });
    expect(p.commonLabels).toEqual({ alertname: 'LedgerNodeDown', severity: 'critical', network: 'main' });
    const alerts = p.alerts as Array<Record<string, unknown>>;
    expect(alerts.map((a) => [a.status, a.endsAt])).toEqual([
      ['firing', '0001-01-01T00:00:00Z'],
      ['resolved', new Date(T0 - 1000).toISOString()],
    ]);
    expect(alerts[0]!.fingerprint).toMatch(/^[0-9a-z-]{16}$/);
  });

  it('slack: readable text and blocks with runbook and status page links; a mass outage stays within limits', () => {
    const spec: ReceiverSpec = {
      name: 'slack',
      kind: 'slack',
      webhookUrl: 'https://hooks.slack.com/services/T/B/secret',
      channel: '#ledger',
    };
    const p = body(buildRequests(spec, note([notified('a')]), ctx)[0]!);
    expect(p.channel).toBe('#ledger');
    expect(p.text).toContain('FIRING LedgerNodeDown (alertname=LedgerNodeDown, network=main): 1 firing, 0 resolved');
    expect(p.text).toContain('- Ledger node a (main) is down');
    const blocks = JSON.stringify(p.blocks);
    expect(blocks).toContain('<https://git.example.org/RUNBOOKS.md#ledgernodedown|runbook>');
    expect(blocks).toContain('<https://fleet.example.org/|Fleet status page>');
    // Text from nodes and config is plain_text in blocks: shown as typed, never formatting.
    expect(p.blocks).toContainEqual({
      type: 'section',
      text: { type: 'plain_text', text: '🔴 Ledger node a (main) is down (critical)\nNode a <down>', emoji: false },
    });
    const many = body(buildRequests(spec, note(Array.from({ length: 60 }, (_, i) => notified(`n${i}`))), ctx)[0]!);
    expect((many.blocks as unknown[]).length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(many.blocks)).toContain('and 40 more');
  });

  it('pagerduty: Events v2 trigger and resolve with a dedup_key from the group identity', () => {
    const spec: ReceiverSpec = {
      name: 'pd',
      kind: 'pagerduty',
      routingKey: 'rk-123',
      url: 'https://events.pagerduty.com/v2/enqueue',
    };
    const trigger = body(buildRequests(spec, note([notified('a'), notified('b')]), ctx)[0]!);
    expect(trigger).toMatchObject({
      routing_key: 'rk-123',
      event_action: 'trigger',
      dedup_key: dedupKey('0:{alertname="LedgerNodeDown",network="main"}'),
    });
    expect(trigger.payload).toMatchObject({
      severity: 'critical',
      source: 'main',
      summary: '[FIRING:2] Ledger node a (main) is down (+1 more)',
    });
    const resolve = body(buildRequests(spec, note([notified('a', 'resolved')]), ctx)[0]!);
    expect(resolve).toEqual({
      routing_key: 'rk-123',
      event_action: 'resolve',
      dedup_key: trigger.dedup_key,
      client: 'ledger-fleet-exporter',
      client_url: ctx.externalUrl,
    });
    // Same identity, same key (restarts, replicas); another group, another key.
    expect(dedupKey('0:{alertname="LedgerNodeDown",network="main"}')).toBe(trigger.dedup_key);
    expect(dedupKey('0:{alertname="LedgerNodeDown",network="test"}')).not.toBe(trigger.dedup_key);
  });
});

describe('receiver queue', () => {
  function harness(answers: SendOutcome[], opts: { capacity?: number } = {}) {
    const sleeps: number[] = [];
    const reports: DeliveryReport[] = [];
    const sent: string[] = [];
    let clock = T0;
    const q = new ReceiverQueue({
      receiver: 'r',
      capacity: opts.capacity,
      send: async (req) => {
        sent.push(req.label);
        return answers.shift() ?? { ok: true, retryable: false, status: 200 };
      },
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
      now: () => clock,
      random: () => 0.5,
      onReport: (r) => reports.push(r),
    });
    return { q, sleeps, reports, sent };
  }
  const req = (label: string): OutboundRequest => ({ url: 'http://x', headers: {}, body: '{}', label });
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('500 twice, then success: retried with exponential backoff and jitter', async () => {
    const h = harness([
      { ok: false, retryable: true, status: 500, message: 'HTTP 500' },
      { ok: false, retryable: true, status: 500 },
    ]);
    h.q.enqueue(note([notified('a')]), [req('one')]);
    await settle();
    expect(h.sleeps).toEqual([backoffMs(1, DEFAULT_RETRY, () => 0.5), backoffMs(2, DEFAULT_RETRY, () => 0.5)]);
    expect(h.sleeps).toEqual([750, 1500]);
    expect(h.reports.map((r) => [r.result, r.attempts])).toEqual([['success', 3]]);
    expect(backoffMs(20, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(backoffMs(1, DEFAULT_RETRY, () => 0)).toBe(500);
  });

  it('429 with Retry-After waits exactly that long (capped)', async () => {
    const h = harness([
      { ok: false, retryable: true, status: 429, retryAfterMs: 7000 },
      { ok: false, retryable: true, status: 429, retryAfterMs: 3_600_000 },
    ]);
    h.q.enqueue(note([notified('a')]), [req('one')]);
    await settle();
    expect(h.sleeps).toEqual([7000, DEFAULT_RETRY.maxRetryAfterMs]);
    expect(h.reports[0]!.result).toBe('success');
  });

  it('bounded attempts, then one failure report; a 4xx is not retried', async () => {
    const fail: SendOutcome = { ok: false, retryable: true, status: 503, message: 'webhook hook: HTTP 503' };
    const h = harness(Array.from({ length: 10 }, () => fail));
    h.q.enqueue(note([notified('a')]), [req('one')]);
    await settle();
    expect(h.sent.length).toBe(DEFAULT_RETRY.maxAttempts);
    expect(h.reports).toHaveLength(1);
    expect(h.reports[0]).toMatchObject({
      result: 'failure',
      attempts: 5,
      status: 503,
      message: 'webhook hook: HTTP 503',
    });
    const bad = harness([{ ok: false, retryable: false, status: 400 }]);
    bad.q.enqueue(note([notified('a')]), [req('one')]);
    await settle();
    expect(bad.reports.map((r) => [r.result, r.attempts, r.status])).toEqual([['failure', 1, 400]]);
  });

  it('only the failed URLs of a multi-URL delivery are retried', async () => {
    const h = harness([
      { ok: true, retryable: false, status: 200 },
      { ok: false, retryable: true, status: 502 },
    ]);
    h.q.enqueue(note([notified('a')]), [req('am-1'), req('am-2')]);
    await settle();
    expect(h.sent).toEqual(['am-1', 'am-2', 'am-2']);
    expect(h.reports[0]!.result).toBe('success');
  });

  it('a full queue drops the oldest notification and says so; a hung receiver holds only its own queue', async () => {
    const hung = new ReceiverQueue({
      receiver: 'hung',
      capacity: 2,
      send: () => new Promise<SendOutcome>(() => undefined),
      sleep: async () => undefined,
      now: () => T0,
      onReport: (r) => reports.push(r),
    });
    const reports: DeliveryReport[] = [];
    const h = harness([]);
    for (const n of ['a', 'b', 'c', 'd']) hung.enqueue(note([notified(n)]), [req(n)]);
    h.q.enqueue(note([notified('x')]), [req('x')]);
    await settle();
    expect(reports.map((r) => [r.result, r.notification.alerts[0]!.labels.node])).toEqual([['dropped', 'b']]);
    expect(hung.length).toBe(3); // a in flight, c and d queued
    expect(h.reports.map((r) => r.result)).toEqual(['success']);
    expect(hung.close().map((n) => n.alerts[0]!.labels.node)).toEqual(['a', 'c', 'd']);
  });

  describe('drain at shutdown', () => {
    /** A receiver whose answers the test releases one by one. */
    function slowReceiver() {
      const answers: Array<(o: SendOutcome) => void> = [];
      const reports: DeliveryReport[] = [];
      const sleeps: number[] = [];
      const q = new ReceiverQueue({
        receiver: 'slow',
        send: () => new Promise<SendOutcome>((resolve) => answers.push(resolve)),
        sleep: async (ms, signal) => {
          sleeps.push(ms);
          if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r));
        },
        now: () => T0,
        random: () => 0.5,
        onReport: (r) => reports.push(r),
      });
      return { q, answers, reports, sleeps };
    }
    const nodes = (list: Notification[]) => list.map((n) => n.alerts[0]!.labels.node);

    it('lets the send in flight finish and report delivered; queued ones and new work are handed back', async () => {
      const s = slowReceiver();
      for (const n of ['a', 'b']) s.q.enqueue(note([notified(n)]), [req(n)]);
      await settle();
      const drained = s.q.drain(5_000);
      s.q.enqueue(note([notified('late')]), [req('late')]);
      await settle();
      s.answers[0]!({ ok: true, retryable: false, status: 200 });
      expect(nodes(await drained)).toEqual(['b']);
      expect(s.reports.map((r) => [r.result, r.notification.alerts[0]!.labels.node])).toEqual([['success', 'a']]);
      expect(s.answers).toHaveLength(1);
      expect(s.q.length).toBe(0);
    });

    it('hands back a send still in flight after the bound, and one that failed (no retry at shutdown)', async () => {
      const stuck = slowReceiver();
      stuck.q.enqueue(note([notified('a')]), [req('a')]);
      await settle();
      const started = Date.now();
      expect(nodes(await stuck.q.drain(50))).toEqual(['a']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      stuck.answers[0]!({ ok: true, retryable: false, status: 200 }); // too late: not reported as delivered
      await settle();
      expect(stuck.reports).toEqual([]);

      const failing = slowReceiver();
      failing.q.enqueue(note([notified('b')]), [req('b')]);
      await settle();
      const drained = failing.q.drain(5_000);
      failing.answers[0]!({ ok: false, retryable: true, status: 503 });
      expect(nodes(await drained)).toEqual(['b']);
      expect(failing.sleeps).toEqual([]);
      expect(failing.reports).toEqual([]);
    });

    it('ends a backoff wait at once: the retry is left to the restart', async () => {
      const s = slowReceiver();
      s.q.enqueue(note([notified('a')]), [req('a')]);
      await settle();
      s.answers[0]!({ ok: false, retryable: true, status: 500 });
      await settle();
      expect(s.sleeps).toEqual([750]);
      expect(nodes(await s.q.drain(60_000))).toEqual(['a']);
      expect(s.answers).toHaveLength(1);
    });
  });
});

describe('a receiver that refuses says why', () => {
  it('a secret URL registers its path and long segments too, so an echo of the path alone is scrubbed', async () => {
    const secrets = new Secrets();
    const spec = await materializeReceiver(
      {
        name: 's',
        kind: 'slack',
        webhookUrl: { value: 'https://hooks.example.org/services/T0AAAA/B0BBBB/tok%2Bsecret%2Fvalue' },
        timeoutMs: 1000,
      },
      secrets,
    );
    expect(spec.kind).toBe('slack');
    const echo = 'got POST /services/T0AAAA/B0BBBB/tok%2Bsecret%2Fvalue and tok+secret/value and tok%2Bsecret%2Fvalue';
    expect(secrets.scrub(echo)).toBe('got POST [REDACTED] and [REDACTED] and [REDACTED]');
    // Plain words of the path are not secrets: the set scrubs every log line and node answer.
    expect(secrets.scrub('503 services unavailable (p2p-services)')).toBe('503 services unavailable (p2p-services)');
    const am = new Secrets();
    await materializeReceiver(
      {
        name: 'am',
        kind: 'alertmanager',
        urls: ['http://am:9093'],
        basicAuth: { username: 'ops', password: { value: 'am-pass-123' } },
        timeoutMs: 1000,
      },
      am,
    );
    const header = `Basic ${Buffer.from('ops:am-pass-123').toString('base64')}`;
    expect(am.scrub(`401: you sent authorization: ${header}`)).toBe('401: you sent authorization: [REDACTED]');
    // Scrubbed before the cut: a secret straddling the 200th character leaves no head behind.
    const cutHere = `${'x'.repeat(ANSWER_EXCERPT_CHARS - 20)} /services/T0AAAA/B0BBBB/tok%2Bsecret%2Fvalue`;
    expect(answerExcerpt(Buffer.from(cutHere), (t) => secrets.scrub(t))).toBe(
      `${'x'.repeat(ANSWER_EXCERPT_CHARS - 20)} [REDACTED]`,
    );
  });

  it('the start of its answer is in the failure message, on one line, bounded, secrets scrubbed', async () => {
    const secret = 'T000/B000/XXXXsecretXXXX';
    const secrets = new Secrets();
    secrets.add(secret);
    const replies = [
      `invalid_token\n(for hooks.slack.com/services/${secret})`,
      `{"status":"invalid event","errors":["${'x'.repeat(500)}"]}`,
    ];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(req.url === '/sl' ? 403 : 400, { 'content-type': 'text/plain' })
          .end(replies[req.url === '/sl' ? 0 : 1]),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new HttpClient({ secrets });
    try {
      const send = httpSend(client, 2000);
      // Paths too short to be scrubbed from the answer (every longer part of the receiver's URL is).
      const slack = await send({ url: `${base}/sl`, headers: {}, body: '{}', label: 'slack s' });
      expect(slack).toMatchObject({ ok: false, retryable: false, status: 403 });
      expect(slack.message).toBe('POST slack s: HTTP 403: invalid_token (for hooks.slack.com/services/[REDACTED])');
      const pd = await send({ url: `${base}/pd`, headers: {}, body: '{}', label: 'pagerduty p' });
      expect(pd.message).toMatch(/^POST pagerduty p: HTTP 400: \{"status":"invalid event","errors":\["x+\.\.\.$/);
      expect(pd.message!.length).toBeLessThan('POST pagerduty p: HTTP 400: '.length + ANSWER_EXCERPT_CHARS + 4);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
