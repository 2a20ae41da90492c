// Plain text (http:// receivers, the agent platform, SMTP without TLS) is accepted only to hosts that
// cannot leave the machine: literal loopback addresses and `localhost` itself. A `*.localhost` name
// goes through ordinary DNS here and may resolve anywhere, so it is refused like any other name.
import { describe, expect, it } from 'vitest';
import { ConfigError, isLoopbackHost, parseConfig } from '../../src/config/index.js';

const parse = (text: string) => parseConfig(text, { file: '/etc/lfe/fleet.yaml', env: {} });

function problems(text: string): string {
  try {
    parse(text);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

const NODE = ['nodes:', '  - name: n1', '    url: http://127.0.0.1:9710'];

describe('loopback hosts', () => {
  it('are literal loopback addresses and localhost itself, never a name under .localhost', () => {
    for (const h of ['127.0.0.1', '127.9.8.7', '[::1]', '::1', 'localhost', 'LOCALHOST'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['mail.x.localhost', 'x.localhost', 'localhost.example.org', '10.0.0.1', 'example.org'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses tls: none with AUTH to a smarthost under .localhost', () => {
    const text = [
      ...NODE,
      'alerting:',
      '  receivers:',
      '    - name: mail',
      '      email:',
      '        smarthost: mail.x.localhost:25',
      '        from: a@example.org',
      '        to: [b@example.org]',
      '        username: alerts',
      '        password: canary-smtp-pass',
      '        tls: none',
      '',
    ].join('\n');
    expect(problems(text)).toMatch(/tls: none is only allowed to a loopback smarthost/);
    expect(problems(text.replace('mail.x.localhost', '127.0.0.1'))).toBe('');
    expect(problems(text.replace('mail.x.localhost', 'localhost'))).toBe('');
  });

  it('refuses http:// receiver URLs and agent platform URLs under .localhost', () => {
    const hook = (url: string) =>
      [
        ...NODE,
        'alerting:',
        '  receivers:',
        '    - name: chat',
        '      discord:',
        `        webhookUrl: ${url}`,
        '',
      ].join('\n');
    expect(problems(hook('http://hooks.x.localhost/api/webhooks/1/secret-token'))).toMatch(/https/);
    expect(problems(hook('http://127.0.0.1:8080/api/webhooks/1/secret-token'))).toBe('');
    const agent = (url: string) =>
      [...NODE, 'agentPlatform:', `  baseUrl: ${url}`, '  apiKeyEnv: LFE_AGENT_KEY', ''].join('\n');
    expect(problems(agent('http://api.x.localhost'))).toMatch(/plain http/);
  });
});
