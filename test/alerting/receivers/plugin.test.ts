// A receiver kind is one module behind one interface: this test defines a kind that is not HTTP
// (it drops each notification as a file into a directory), registers it at run time, configures
// it in YAML like any built-in kind, and pages through it with the built-in engine inside the
// daemon. Its first attempt fails with a retry hint: the queue honours it as for HTTP kinds.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { alertingComponent } from '../../../src/alerting/component.js';
import { checkSecretPair, secretFields, secretOf, slot } from '../../../src/alerting/receivers/fields.js';
import { defineReceiverKind, type DeliveryPart } from '../../../src/alerting/receivers/kind.js';
import { registerReceiverKind } from '../../../src/alerting/receivers/registry.js';
import { loadConfigFile } from '../../../src/config/index.js';
import { generateSchemaJson } from '../../../src/config/jsonSchema.js';
import type { Daemon } from '../../../src/daemon/index.js';
import { SimFleet } from '../../../src/sim/index.js';
import { closeAlertingRig, deliveriesLogged, startAlertingDaemon } from '../../support/alertingDaemon.js';
import { waitFor } from '../../support/processes.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';

const SEAL = 'pigeon-seal-canary-5521';
const WAIT = 20_000;

interface Letter extends DeliveryPart {
  file: string;
  text: string;
}

/** Attempts per letter file, kept by the kind (the first one of each letter fails). */
const attempts = new Map<string, number[]>();
/** Receivers the kind's dry check was asked about. */
const checked: string[] = [];

const pigeonKind = defineReceiverKind({
  kind: 'pigeon',
  description: 'Drops each notification as a file into a directory.',
  fields: {
    loft: z.string().min(1).meta({ description: 'Directory the letters go to.' }),
    ...secretFields('seal', 'seal'),
  },
  check: (raw, issue) => checkSecretPair(raw, 'seal', issue),
  resolve: (raw, file) => ({ loft: file(raw.loft), seal: secretOf(raw, 'seal', file)! }),
  secrets: (s) => ({ seal: slot(s.seal, 'seal') }),
  build: (s, secret) => ({ loft: s.loft, seal: secret('seal')! }),
  parts: (spec, n): Letter[] => [
    {
      label: `pigeon ${spec.name}`,
      file: path.join(spec.loft, `${n.status}-${n.createdAt}.txt`),
      text: `${spec.seal}\n${n.status} ${n.alerts.map((a) => a.labels.node).join(',')}\n`,
    },
  ],
  send: async (letter) => {
    const times = attempts.get(letter.file) ?? [];
    times.push(Date.now());
    attempts.set(letter.file, times);
    if (times.length === 1) return { ok: false, retryable: true, message: 'the pigeon is resting', retryAfterMs: 700 };
    await writeFile(letter.file, letter.text);
    return { ok: true, retryable: false, message: 'landed' };
  },
  dryCheck: async (spec) => {
    checked.push(spec.name);
    return access(spec.loft).then(
      () => ({ receiver: spec.name, ok: true, detail: 'loft there' }),
      () => ({ receiver: spec.name, ok: false, detail: `pigeon ${spec.name}: no loft` }),
    );
  },
});

// At run time, before any config is parsed; no other source file knows the kind.
registerReceiverKind(pigeonKind);

describe('a receiver kind registered at run time', () => {
  let dir = '';
  let loft = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let log: () => string = () => '';
  let configFile = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-receiver-plugin-'));
    loft = path.join(dir, 'loft');
    mkdirSync(loft);
    writeFileSync(path.join(dir, 'seal'), `${SEAL}\n`);
    fleet = await SimFleet.start(
      ['plg-1', 'plg-2'].map((name) => ({ name, network: 'plg', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    const receivers = [{ name: 'coop', pigeon: { loft: 'loft', timeout: '2s', sealFile: 'seal' } }];
    configFile = writeNodeDownYaml(dir, fleet.nodes, 'plg', receivers);
    const config = await loadConfigFile(configFile);
    ({ daemon, log } = await startAlertingDaemon(config, alertingComponent()));
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, dir }));

  it('is configured in YAML, listed in the JSON schema, and refuses a section that breaks its checks', async () => {
    const schema = generateSchemaJson();
    expect(schema).toContain('"pigeon"');
    expect(schema).toContain('"sealFile"');
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      readFileSync(configFile, 'utf8').replace(/^( *)sealFile: seal$/m, `$1sealFile: seal\n$1seal: ${SEAL}`),
    );
    await expect(loadConfigFile(bad)).rejects.toThrow(/set exactly one of seal and sealFile/);
  });

  it(
    'pages through it: firing and resolved, each after a retry that waited the hint, secrets kept out of the log',
    { timeout: 4 * WAIT },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: WAIT });
      await fleet.node('plg-2').kill();
      const letters = (status: string) => readdirSync(loft).filter((f) => f.startsWith(`${status}-`));
      // A letter is listed from its open, before it is written; its delivery is counted once send()
      // has returned, after the write.
      const sent = () => deliveriesLogged(log());
      await waitFor(
        'a firing letter, written and its delivery counted',
        () => (letters('firing').length > 0 && sent() >= 1 ? true : undefined),
        { timeoutMs: WAIT, context: log },
      );
      const firing = readFileSync(path.join(loft, letters('firing')[0]!), 'utf8');
      expect(firing).toBe(`${SEAL}\nfiring plg-2\n`);
      await fleet.node('plg-2').revive();
      await waitFor(
        'a resolved letter, written and its delivery counted',
        () => (letters('resolved').length > 0 && sent() >= 2 ? true : undefined),
        { timeoutMs: WAIT, context: log },
      );
      expect(readFileSync(path.join(loft, letters('resolved')[0]!), 'utf8')).toBe(`${SEAL}\nresolved plg-2\n`);

      // Each letter: one refused attempt, then one after at least the 700 ms asked for.
      const delivered = [...attempts.values()].filter((t) => t.length === 2);
      expect(delivered.length).toBeGreaterThanOrEqual(2);
      for (const [first, second] of delivered) expect(second! - first!).toBeGreaterThanOrEqual(690);
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toMatch(/ledger_alert_notifications_total\{receiver="coop",result="success"\} 2\n/);
      expect(checked).toEqual(['coop']);
      expect(log()).not.toContain('failed its start-up check');
      expect(log()).not.toContain(SEAL);
    },
  );
});
