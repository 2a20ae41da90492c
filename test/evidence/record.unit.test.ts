import { describe, expect, it } from 'vitest';
import { buildEvidenceRecord, EVIDENCE_HEADERS, type EvidenceInput } from '../../src/evidence/record.js';
import { parseEvidenceQuery } from '../../src/evidence/query.js';
import { Secrets } from '../../src/redact.js';

const runner = { hostname: 'runner-1', version: '1.2.3' };

function input(over: Partial<EvidenceInput> = {}): EvidenceInput {
  return {
    node: 'val-eu-1',
    network: 'mainnet',
    url: 'http://10.0.0.5:9710/health',
    probe: 'health',
    method: 'GET /health',
    status: 503,
    durationMs: 12.5,
    attempt: 2,
    headers: {},
    body: new Uint8Array(),
    runnerStatus: { consecutiveFailures: 3, lastSuccess: Date.UTC(2024, 4, 1, 11, 0, 0) },
    ...over,
  };
}

describe('buildEvidenceRecord', () => {
  it('records every field the issue names, with times as ISO strings', () => {
    const now = new Date(Date.UTC(2024, 4, 1, 12, 0, 0, 250));
    const r = buildEvidenceRecord(input({ body: new TextEncoder().encode('<html>Bad gateway</html>') }), runner, now);
    expect(r).toEqual({
      time: '2024-05-01T12:00:00.250Z',
      runner: { hostname: 'runner-1', version: '1.2.3' },
      node: 'val-eu-1',
      network: 'mainnet',
      url: 'http://10.0.0.5:9710/health',
      probe: 'health',
      method: 'GET /health',
      status: 503,
      durationMs: 12.5,
      attempt: 2,
      headers: {},
      body: '<html>Bad gateway</html>',
      bodyTruncated: false,
      runnerStatus: { consecutiveFailures: 3, lastSuccess: '2024-05-01T11:00:00.000Z' },
    });
    const never = buildEvidenceRecord(
      input({ runnerStatus: { consecutiveFailures: 1, lastSuccess: null } }),
      runner,
      now,
    );
    expect(never.runnerStatus.lastSuccess).toBeNull();
  });

  it('keeps only the selected headers, case-insensitively, joining repeated values', () => {
    const r = buildEvidenceRecord(
      input({
        headers: {
          Server: 'nginx/1.25',
          date: 'Wed, 01 May 2024 12:00:00 GMT',
          'Content-Type': 'text/html',
          'retry-after': '30',
          via: ['1.1 proxy-a', '1.1 proxy-b'],
          'X-Request-Id': 'req-42',
          'set-cookie': 'session=abc123456',
          authorization: 'Bearer very-secret-token',
          'x-powered-by': 'php',
          'content-length': '100',
          etag: undefined,
        },
      }),
      runner,
    );
    expect(r.headers).toEqual({
      server: 'nginx/1.25',
      date: 'Wed, 01 May 2024 12:00:00 GMT',
      'content-type': 'text/html',
      'retry-after': '30',
      via: '1.1 proxy-a, 1.1 proxy-b',
      'x-request-id': 'req-42',
    });
    expect(Object.keys(r.headers).sort()).toEqual([...EVIDENCE_HEADERS].sort());
  });

  it('bounds the body at a UTF-8 boundary and says it was cut', () => {
    // 'é' is 2 bytes: 10 of them are 20 bytes; a 9-byte bound must not split the 5th.
    const body = new TextEncoder().encode('é'.repeat(10));
    const r = buildEvidenceRecord(input({ body }), runner, new Date(), 9);
    expect(r.body).toBe('éééé');
    expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(9);
    expect(r.body).not.toContain('\uFFFD');
    expect(r.bodyTruncated).toBe(true);

    const euro = new TextEncoder().encode('€€€'); // 3 bytes each
    expect(buildEvidenceRecord(input({ body: euro }), runner, new Date(), 8).body).toBe('€€');
    expect(buildEvidenceRecord(input({ body: euro }), runner, new Date(), 9)).toMatchObject({
      body: '€€€',
      bodyTruncated: false,
    });
  });

  it('replaces invalid UTF-8 with U+FFFD so the record is valid JSON text', () => {
    const body = Uint8Array.from([0x6f, 0x6b, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0x21, 0xe2, 0x82]);
    const r = buildEvidenceRecord(input({ body }), runner);
    expect(r.body.startsWith('ok\uFFFD\uFFFD \uFFFD(!')).toBe(true);
    // An incomplete sequence at the end of an uncut body is invalid, not silently dropped.
    expect(r.body.endsWith('\uFFFD')).toBe(true);
    expect(r.bodyTruncated).toBe(false);
    expect(JSON.parse(JSON.stringify(r)).body).toBe(r.body);
  });

  it('marks the body truncated when the caller stopped reading early', () => {
    const r = buildEvidenceRecord(input({ body: new TextEncoder().encode('abc'), bodyTruncated: true }), runner);
    expect(r).toMatchObject({ body: 'abc', bodyTruncated: true });
  });

  it('removes URL credentials and secrets echoed in the body, headers or URL', () => {
    const secret = 'k3y-evidence-record-test-0b1c';
    const secrets = new Secrets();
    secrets.add(secret);
    secrets.addUrlCredentials('http://admin:hunter2-pass@10.0.0.5:9710/');
    const r = buildEvidenceRecord(
      input({
        url: 'http://admin:hunter2-pass@10.0.0.5:9710/rpc?token=' + secret,
        body: new TextEncoder().encode(
          `{"error":"bad key ${secret}","upstream":"http://admin:hunter2-pass@10.0.0.5/","auth":"hunter2-pass"}`,
        ),
        headers: { server: `proxy ${secret}`, 'x-request-id': 'ok' },
      }),
      runner,
      new Date(),
      undefined,
      secrets,
    );
    const text = JSON.stringify(r);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('hunter2-pass');
    expect(text).not.toContain('admin:');
    expect(r.url).toBe('http://10.0.0.5:9710/rpc?token=[REDACTED]');
    expect(r.body).toContain('bad key [REDACTED]');
    expect(r.headers.server).toBe('proxy [REDACTED]');
  });

  it('scrubs a secret that straddles the body bound instead of keeping its first half', () => {
    const secret = 'straddling-secret-value-77aa';
    const secrets = new Secrets();
    secrets.add(secret);
    const body = new TextEncoder().encode('x'.repeat(20) + secret + 'y'.repeat(20));
    const r = buildEvidenceRecord(input({ body }), runner, new Date(), 30, secrets);
    expect(r.body.startsWith('x'.repeat(20))).toBe(true);
    expect(r.body).not.toContain(secret.slice(0, 6));
    expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(30);
  });

  it('never lets numbers become NaN or Infinity in the record', () => {
    const r = buildEvidenceRecord(
      input({
        status: Number.NaN,
        durationMs: Number.POSITIVE_INFINITY,
        attempt: 1.7,
        runnerStatus: { consecutiveFailures: Number.NaN, lastSuccess: Number.NaN },
      }),
      runner,
    );
    expect(r).toMatchObject({
      status: 0,
      durationMs: 0,
      attempt: 1,
      runnerStatus: { consecutiveFailures: 0, lastSuccess: null },
    });
  });
});

describe('parseEvidenceQuery', () => {
  const parse = (qs: string) => parseEvidenceQuery(new URLSearchParams(qs));

  it('defaults the limit to 100 and accepts node, ISO since and epoch-seconds since', () => {
    expect(parse('')).toEqual({ ok: true, query: { limit: 100 } });
    expect(parse('node=val-eu-1&limit=5&since=2024-05-01T12:00:00Z')).toEqual({
      ok: true,
      query: { node: 'val-eu-1', limit: 5, since: new Date('2024-05-01T12:00:00Z') },
    });
    expect(parse('since=1714564800')).toEqual({
      ok: true,
      query: { limit: 100, since: new Date('2024-05-01T12:00:00Z') },
    });
    expect(parse('since=2024-05-01T14:00:00%2B02:00')).toEqual({
      ok: true,
      query: { limit: 100, since: new Date('2024-05-01T12:00:00Z') },
    });
    expect(parse('limit=1000')).toMatchObject({ ok: true, query: { limit: 1000 } });
  });

  it.each([
    ['limit=0', /limit/],
    ['limit=1001', /limit/],
    ['limit=-1', /limit/],
    ['limit=2.5', /limit/],
    ['limit=ten', /limit/],
    ['limit=', /limit/],
    ['since=yesterday', /since/],
    ['since=2024-05-01T12:00:00', /since/], // no zone: ambiguous
    ['since=2024-13-45T00:00:00Z', /since/],
    ['since=', /since/],
    ['node=', /node/],
    ['node=%20padded', /node/],
    ['node=a%0Ab', /node/],
    ['node=a%2Fb', /node/],
    ['node=-lead', /node/],
    ['node=' + 'n'.repeat(129), /node/],
    ['nodes=val-eu-1', /unknown parameter "nodes"/],
    ['node=a&node=b', /more than once/],
  ])('rejects %s', (qs, message) => {
    const r = parse(qs);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});
