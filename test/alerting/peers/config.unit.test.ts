// `alerting.peers` and a telegram receiver's `commands`: resolved paths, and each mistake as file:line:col.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { configProblems, yaml } from '../../support/configProblems.js';

const FILE = '/etc/lfe/fleet.yaml';
const NODE = ['nodes:', '  - name: a', '    url: http://10.0.0.1:9710'];
const parse = (text: string) => parseConfig(text, { file: FILE, env: {} });

const problems = (text: string) => configProblems(text, { file: FILE });

describe('alerting.peers', () => {
  it('resolves the credential files next to the config; none by default', () => {
    const c = parse(
      yaml(
        ...NODE,
        'alerting:',
        '  peers:',
        '    - url: http://lfe-1:9715/',
        '      usernameFile: secrets/user',
        '      passwordFile: /run/secrets/pw',
      ),
    );
    expect(c.alerting?.peers).toEqual([
      { url: 'http://lfe-1:9715', usernameFile: '/etc/lfe/secrets/user', passwordFile: '/run/secrets/pw' },
    ]);
    expect(parse(yaml(...NODE, 'alerting: {}')).alerting?.peers).toBeUndefined();
  });

  it('says what is wrong where: credentials in the URL, one file of the pair, an unknown key', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          'alerting:',
          '  peers:',
          '    - url: http://u:p@lfe-1:9715',
          '    - url: http://lfe-2:9715',
          '      usernameFile: u',
          '    - url: http://lfe-3:9715',
          '      token: x',
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^\/etc\/lfe\/fleet\.yaml:6:12: alerting\.peers\[0\]\.url: URL must not contain user:password \(use usernameFile/,
      ),
      expect.stringMatching(
        /^\/etc\/lfe\/fleet\.yaml:7:7: alerting\.peers\[1\]: set both usernameFile and passwordFile/,
      ),
      expect.stringMatching(/^\/etc\/lfe\/fleet\.yaml:10:7: alerting\.peers\[2\]\.token: unknown key/),
    ]);
  });
});

describe('telegram commands', () => {
  const tg = (commands: string) =>
    yaml(
      ...NODE,
      'alerting:',
      '  receivers:',
      '    - name: tg',
      '      telegram:',
      '        botToken: "123:abc"',
      '        chatId: "-100123"',
      `        commands: ${commands}`,
    );

  it('takes the allowed user ids', () => {
    expect(parse(tg('{users: [111, 222]}')).alerting?.receivers[0]).toMatchObject({ commands: { users: [111, 222] } });
  });

  it('refuses an empty list and ids that are not user ids, at their position', () => {
    expect(problems(tg('{users: []}'))).toEqual([
      expect.stringMatching(/:10:27: alerting\.receivers\[0\]\.telegram\.commands\.users: list at least one/),
    ]);
    expect(problems(tg('{users: ["alice"]}'))).toEqual([expect.stringMatching(/:10:28: .*commands\.users\[0\]/)]);
  });
});
