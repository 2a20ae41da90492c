// A receiver secret given as a file is read again when the file changes (a rotated webhook URL or
// token is used without a reload), and registered as a secret before it is used.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReceiverSet } from '../../../src/alerting/notify/receiverSet.js';
import { createLogger } from '../../../src/logger.js';
import { Secrets } from '../../../src/redact.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lfe-receiver-secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a receiver secret file', () => {
  it('is read again once it changes (also by a rename), and a missing file keeps the last spec', async () => {
    const file = path.join(dir, 'slack-url');
    writeFileSync(file, 'https://hooks.example.org/services/T0/B0/first-secret-1111\n');
    const secrets = new Secrets();
    const set = await ReceiverSet.build([{ name: 'slack', kind: 'slack', webhookUrl: { file }, timeoutMs: 1000 }], {
      logger: createLogger({ level: 'silent' }),
      secrets,
      sendFor: () => async () => ({ ok: true, retryable: false }),
      now: Date.now,
      onReport: () => undefined,
    });
    expect(set.get('slack')?.spec.webhookUrl).toBe('https://hooks.example.org/services/T0/B0/first-secret-1111');

    // Replaced the way Kubernetes and editors do: a new file renamed over the old one.
    writeFileSync(`${file}.new`, 'https://hooks.example.org/services/T0/B0/second-secret-2222\n');
    renameSync(`${file}.new`, file);
    await set.refresh();
    expect(set.get('slack')?.spec.webhookUrl).toBe('https://hooks.example.org/services/T0/B0/second-secret-2222');
    expect(secrets.scrub('echo second-secret-2222')).toBe('echo [REDACTED]');

    rmSync(file);
    await set.refresh();
    expect(set.get('slack')?.spec.webhookUrl).toBe('https://hooks.example.org/services/T0/B0/second-secret-2222');
    for (const r of set.all()) r.queue.close();
  });
});
