// The `alerting:` section: defaults, resolution, secrets, and every mistake as file:line:col.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { sectionSecrets } from '../../src/config/sections/index.js';
import { configProblems, yaml } from '../support/configProblems.js';

const FILE = 'fleet.yaml';
const NODE = ['nodes:', '  - name: a', '    url: http://10.0.0.1:9710'];
const parse = (text: string, env: Record<string, string> = {}) => parseConfig(text, { file: FILE, env });

const problems = (text: string) => configProblems(text, { file: FILE });

describe('alerting section', () => {
  it('five lines with a Slack receiver: defaults filled in', () => {
    const c = parse(
      yaml(...NODE, 'alerting:', '  receivers:', '    - name: slack', '      slack: {webhookUrl: "${SLACK_URL}"}'),
      { SLACK_URL: 'https://hooks.slack.com/services/T0/B0/sEcReT' },
    );
    expect(c.alerting).toMatchObject({
      evaluationIntervalMs: 15_000,
      runbookBase: 'alerts/RUNBOOKS.md',
      routing: {
        groupBy: ['alertname', 'network'],
        groupWaitMs: 30_000,
        groupIntervalMs: 300_000,
        repeatIntervalMs: 4 * 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['slack'],
      },
      receivers: [
        {
          name: 'slack',
          kind: 'slack',
          webhookUrl: { value: 'https://hooks.slack.com/services/T0/B0/sEcReT' },
          timeoutMs: 10_000,
        },
      ],
      maintenance: [],
    });
    expect(c.alerting?.stateDir).toMatch(/data\/alerting$/);
    expect(sectionSecrets(c)).toContain('https://hooks.slack.com/services/T0/B0/sEcReT');
  });

  it('the full form resolves: overrides, routes with their own timing, every receiver kind and its secrets', () => {
    const c = parse(
      yaml(
        ...NODE,
        'alerting:',
        '  evaluationInterval: 5s',
        '  rules:',
        '    LedgerNodeBehindFleet: {for: 5m, keepFiringFor: 5m, threshold: 20, severity: warning}',
        '    LedgerMiningUpgradeApproaching: {enabled: false}',
        '  receivers:',
        '    - name: am',
        '      alertmanager: {urls: ["http://127.0.0.1:9093"], bearerTokenFile: secrets/am}',
        '    - name: hook',
        '      webhook: {url: "https://ops.example.org/hook", headers: {authorization: "Token hook-tok"}}',
        '    - name: pager',
        '      pagerduty: {routingKey: pd-key-1}',
        '  routes:',
        '    - match: {severity: critical, network: "~main.*"}',
        '      receivers: [pager, am]',
        '    - receivers: [hook]',
        '      repeatInterval: 12h',
      ),
    );
    const a = c.alerting!;
    expect(a.rules).toEqual({
      LedgerNodeBehindFleet: {
        forMs: 300_000,
        keepFiringForMs: 300_000,
        threshold: 20,
        severity: 'warning',
        enabled: undefined,
      },
      LedgerMiningUpgradeApproaching: {
        enabled: false,
        forMs: undefined,
        keepFiringForMs: undefined,
        threshold: undefined,
        severity: undefined,
      },
    });
    expect(a.routing.routes[1]).toMatchObject({ receivers: ['hook'], repeatIntervalMs: 12 * 3_600_000 });
    expect(a.receivers.map((r) => r.kind)).toEqual(['alertmanager', 'webhook', 'pagerduty']);
    expect(a.receivers[0]).toMatchObject({ bearerToken: { file: expect.stringMatching(/\/secrets\/am$/) } });
    expect(a.receivers[2]).toMatchObject({
      url: 'https://events.pagerduty.com/v2/enqueue',
      routingKey: { value: 'pd-key-1' },
    });
    expect(sectionSecrets(c)).toEqual(
      expect.arrayContaining(['pd-key-1', 'Token hook-tok', 'https://ops.example.org/hook']),
    );
  });

  it('mistakes are reported at file:line:col', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          'alerting:',
          '  rules:',
          '    LedgerNodeDwn: {for: 5m}',
          '    LedgerNodeDown: {threshold: 3}',
          '    LedgerNodeLowPeers: {severity: page}',
          '  receivers:',
          '    - name: s',
          '      slack: {channel: "#x"}',
          '    - name: s',
          '      webhook: {url: "ftp://x"}',
          '    - name: both',
          '      webhook: {url: "https://a"}',
          '      pagerduty: {routingKey: k}',
          '  routes:',
          '    - match: {node: "~(unclosed"}',
          '      receivers: [nobody]',
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^fleet\.yaml:6:20: alerting\.rules\.LedgerNodeDwn: unknown alert "LedgerNodeDwn"; known: LedgerNodeDown, /,
      ),
      'fleet.yaml:7:33: alerting.rules.LedgerNodeDown.threshold: LedgerNodeDown has no threshold',
      'fleet.yaml:8:36: alerting.rules.LedgerNodeLowPeers.severity: severity must be one of critical, warning, info',
      'fleet.yaml:11:14: alerting.receivers[0].slack: set exactly one of webhookUrl and webhookUrlFile',
      'fleet.yaml:12:13: alerting.receivers[1].name: duplicate receiver name "s"',
      'fleet.yaml:13:22: alerting.receivers[1].webhook.url: URL scheme must be http or https',
      'fleet.yaml:14:7: alerting.receivers[2]: a receiver has exactly one of alertmanager, webhook, slack, ' +
        'pagerduty, telegram, discord, ntfy, msteams, opsgenie, email (found webhook, pagerduty)',
      expect.stringMatching(/^fleet\.yaml:18:21: alerting\.routes\[0\]\.match\.node: invalid regex after "~"/),
      'fleet.yaml:19:19: alerting.routes[0].receivers[0]: unknown receiver "nobody"',
    ]);
  });

  it('durations are whole milliseconds, with a floor where a tiny value would flood something', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          'alerting:',
          '  evaluationInterval: 1ns',
          '  groupWait: 1ns',
          '  groupInterval: 500ms',
          '  repeatInterval: 999ms',
          '  rules:',
          '    LedgerNodeDown: {for: 1.5ms, keepFiringFor: -1s}',
          '  receivers:',
          '    - name: hook',
          '      webhook: {url: "https://a", timeout: 10ms}',
          '  routes:',
          '    - receivers: [hook]',
          '      groupInterval: 1s1us',
          '  maintenance:',
          '    - {name: w, schedule: "0 3 * * 0", duration: 1m0.5ms}',
          '  heartbeat: {url: "https://hc.example.org/x", interval: 5.0001s, timeout: 100.5ms}',
        ),
      ),
    ).toEqual([
      'fleet.yaml:5:23: alerting.evaluationInterval: duration must be at least 100ms',
      'fleet.yaml:6:14: alerting.groupWait: duration must be a whole number of milliseconds',
      'fleet.yaml:7:18: alerting.groupInterval: duration must be at least 1s',
      'fleet.yaml:8:19: alerting.repeatInterval: duration must be at least 1s',
      'fleet.yaml:10:27: alerting.rules.LedgerNodeDown.for: duration must be a whole number of milliseconds',
      'fleet.yaml:10:49: alerting.rules.LedgerNodeDown.keepFiringFor: duration must not be negative',
      'fleet.yaml:13:44: alerting.receivers[0].webhook.timeout: duration must be at least 100ms',
      'fleet.yaml:16:22: alerting.routes[0].groupInterval: duration must be a whole number of milliseconds',
      'fleet.yaml:18:50: alerting.maintenance[0].duration: duration must be a whole number of milliseconds',
      'fleet.yaml:19:58: alerting.heartbeat.interval: duration must be a whole number of milliseconds',
      'fleet.yaml:19:76: alerting.heartbeat.timeout: duration must be a whole number of milliseconds',
    ]);
    // Zero stays valid where it means "at once", and the floors themselves are accepted.
    const a = parse(
      yaml(
        ...NODE,
        'alerting:',
        '  evaluationInterval: 100ms',
        '  groupWait: 0s',
        '  groupInterval: 1s',
        '  repeatInterval: 1s',
        '  rules: {LedgerNodeDown: {for: 0s, keepFiringFor: 0s}}',
        '  receivers: [{name: h, webhook: {url: "https://a", timeout: 100ms}}]',
      ),
    ).alerting!;
    expect(a).toMatchObject({
      evaluationIntervalMs: 100,
      routing: { groupWaitMs: 0, groupIntervalMs: 1000, repeatIntervalMs: 1000 },
      receivers: [{ timeoutMs: 100 }],
    });
    expect(a.rules.LedgerNodeDown).toMatchObject({ forMs: 0, keepFiringForMs: 0 });
  });

  it('duplicate receivers and unknown route receivers (checked once the receivers are valid)', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          'alerting:',
          '  receivers:',
          '    - name: s',
          '      pagerduty: {routingKey: k}',
          '    - name: s',
          '      pagerduty: {routingKey: k}',
          '  routes:',
          '    - receivers: [s, nobody]',
        ),
      ),
    ).toEqual([
      'fleet.yaml:8:13: alerting.receivers[1].name: duplicate receiver name "s"',
      'fleet.yaml:11:22: alerting.routes[0].receivers[1]: unknown receiver "nobody"',
    ]);
  });
});
