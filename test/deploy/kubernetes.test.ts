// deploy/kubernetes: both overlays rendered by the real `kubectl kustomize`, every object checked
// against the Kubernetes and prometheus-operator schemas (kubernetes-models), the wiring between
// objects (selectors, ports, volumes, shards), the ConfigMap's config through `check-config`, and
// the PrometheusRule against the rule files in alerts/.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadRuleGroups } from '../../src/deploy/prometheusRule.js';
import { PROMETHEUS_RULE_FILE, REPO_ROOT, renderPrometheusRule } from '../../src/deploy/writeManifests.js';
import { shardFromHostname } from '../../src/shard/index.js';
import { unknownFieldErrors } from './k8s-fields.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { findExecutable } from '../support/prometheus-tools.js';

const run = promisify(execFile);
const KUBE_DIR = path.join(REPO_ROOT, 'deploy', 'kubernetes');
const NAME = 'ledger-fleet-exporter';

// kubectl is on every machine of this project's kind, CI included: there a missing kubectl fails.
const kubectl = findExecutable('kubectl');
const required =
  Boolean(process.env.CI) || process.env.REQUIRE_KUBECTL === '1' || process.env.REQUIRE_PROMETHEUS === '1';
const skip = !kubectl && !required;
const skipNote = skip ? ' [SKIPPED: kubectl not found; set REQUIRE_KUBECTL=1 to make this a failure]' : '';
if (skip) console.warn('kubectl not found: skipping the kustomize rendering tests');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

type Validator = (obj: K8sObject) => void;
// Each class checks its object against the JSON schema from the Kubernetes / prometheus-operator
// OpenAPI definitions and throws with the failing path.
const MODELS: Record<string, Validator> = {
  'v1/ServiceAccount': (o) => new ServiceAccount(o).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o).validate(),
  'v1/Service': (o) => new Service(o).validate(),
  'apps/v1/StatefulSet': (o) => new StatefulSet(o).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o).validate(),
  'monitoring.coreos.com/v1/ServiceMonitor': (o) => new ServiceMonitor(o as never).validate(),
  'monitoring.coreos.com/v1/PrometheusRule': (o) => new PrometheusRule(o as never).validate(),
};

function validate(obj: K8sObject): void {
  const model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!model) throw new Error(`${obj.apiVersion} ${obj.kind} ${obj.metadata.name}: no schema known to this test`);
  model(obj);
}

async function render(overlay: string): Promise<K8sObject[]> {
  const { stdout } = await run(kubectl as string, ['kustomize', path.join(KUBE_DIR, 'overlays', overlay)], {
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseAllDocuments(stdout).map((d) => d.toJS() as K8sObject);
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

function only<T = K8sObject>(objects: K8sObject[], kind: string): T {
  const found = objects.filter((o) => o.kind === kind);
  expect(
    found.map((o) => o.metadata.name),
    kind,
  ).toHaveLength(1);
  return found[0] as T;
}

interface StatefulSetLike extends K8sObject {
  spec: {
    replicas: number;
    serviceName: string;
    podManagementPolicy?: string;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: IPodSpec };
  };
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe.skipIf(skip)(`deploy/kubernetes overlays${skipNote}`, () => {
  if (!kubectl) {
    it('needs kubectl', () => {
      throw new Error('kubectl is required here (CI or REQUIRE_KUBECTL=1) but was not found on PATH');
    });
    return;
  }

  const rendered = new Map<string, K8sObject[]>();
  beforeAll(async () => {
    for (const overlay of ['single', 'sharded']) rendered.set(overlay, await render(overlay));
  }, 120_000);
  const objects = (overlay: string): K8sObject[] => rendered.get(overlay) ?? [];

  describe.each([
    ['single', 1],
    ['sharded', 3],
  ] as const)('overlay %s', (overlay, shards) => {
    it('renders exactly the expected objects, each valid against its schema', () => {
      const kinds = objects(overlay)
        .map((o) => o.kind)
        .sort();
      expect(kinds).toEqual([
        'ConfigMap',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'PrometheusRule',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
        'StatefulSet',
      ]);
      for (const obj of objects(overlay)) expect(() => validate(obj), `${obj.kind} ${obj.metadata.name}`).not.toThrow();
    });

    it(`runs ${shards} replica(s), each taking its shard from the pod ordinal`, () => {
      const sts = only<StatefulSetLike>(objects(overlay), 'StatefulSet');
      expect(sts.spec.replicas).toBe(shards);
      const container = sts.spec.template.spec.containers[0] as IContainer;
      expect(container.args).toContain('--shard-from-hostname');
      expect(container.args).toContain('--total-shards=$(LEDGER_TOTAL_SHARDS)');
      expect(container.env?.find((e) => e.name === 'LEDGER_TOTAL_SHARDS')?.value).toBe(String(shards));
      // Pod names of a StatefulSet are <name>-0 .. <name>-(replicas-1): every shard index once.
      const indexes = Array.from({ length: sts.spec.replicas }, (_, i) =>
        shardFromHostname(`${sts.metadata.name}-${i}`),
      );
      expect(indexes).toEqual(Array.from({ length: shards }, (_, i) => i));
      expect(sts.spec.podManagementPolicy).toBe('Parallel');
    });

    it('is locked down: non-root, read-only root, no escalation, no capabilities, RuntimeDefault seccomp', () => {
      const pod = only<StatefulSetLike>(objects(overlay), 'StatefulSet').spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        expect(c.securityContext?.readOnlyRootFilesystem, c.name).toBe(true);
        expect(c.securityContext?.allowPrivilegeEscalation, c.name).toBe(false);
        expect(c.securityContext?.capabilities?.drop, c.name).toEqual(['ALL']);
        expect(c.securityContext?.capabilities?.add, c.name).toBeUndefined();
        expect(c.securityContext?.seccompProfile?.type, c.name).toBe('RuntimeDefault');
        expect(c.resources?.requests?.cpu, c.name).toBeDefined();
        expect(c.resources?.requests?.memory, c.name).toBeDefined();
        expect(c.resources?.limits?.memory, c.name).toBeDefined();
      }
    });

    it('probes /healthz for liveness and /readyz for readiness on the metrics port', () => {
      const container = only<StatefulSetLike>(objects(overlay), 'StatefulSet').spec.template.spec
        .containers[0] as IContainer;
      expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'metrics' });
      expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'metrics' });
      expect(container.ports?.map((p) => p.name)).toContain('metrics');
    });

    it('wires Service, ServiceMonitor, PodDisruptionBudget and NetworkPolicy to the pods', () => {
      const all = objects(overlay);
      const sts = only<StatefulSetLike>(all, 'StatefulSet');
      const podLabels = sts.spec.template.metadata.labels;
      expect(matches(sts.spec.selector.matchLabels, podLabels)).toBe(true);
      const svc = only<
        K8sObject & {
          spec: {
            clusterIP: string;
            selector: Record<string, string>;
            ports: Array<{ name: string; targetPort: string }>;
          };
        }
      >(all, 'Service');
      expect(svc.metadata.name).toBe(sts.spec.serviceName);
      expect(svc.spec.clusterIP).toBe('None');
      expect(matches(svc.spec.selector, podLabels)).toBe(true);
      const containerPorts = (sts.spec.template.spec.containers[0] as IContainer).ports?.map((p) => p.name);
      for (const p of svc.spec.ports) expect(containerPorts).toContain(p.targetPort);
      const sm = only<
        K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string }> } }
      >(all, 'ServiceMonitor');
      expect(matches(sm.spec.selector.matchLabels, svc.metadata.labels ?? {})).toBe(true);
      for (const ep of sm.spec.endpoints) expect(svc.spec.ports.map((p) => p.name)).toContain(ep.port);
      // The job label is the Service name; the alert rules select job="ledger-fleet-exporter".
      expect(svc.metadata.name).toBe(NAME);
      const pdb = only<
        K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable: number } }
      >(all, 'PodDisruptionBudget');
      expect(matches(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(pdb.spec.maxUnavailable).toBe(1);
      const np = only<
        K8sObject & { spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[] } }
      >(all, 'NetworkPolicy');
      expect(matches(np.spec.podSelector.matchLabels, podLabels)).toBe(true);
      expect(np.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    });

    it('mounts the generated ConfigMap at --config and gives every written path a writable volume', () => {
      const all = objects(overlay);
      const pod = only<StatefulSetLike>(all, 'StatefulSet').spec.template.spec;
      const cm = only<K8sObject & { data: Record<string, string> }>(all, 'ConfigMap');
      const configVolume = pod.volumes?.find((v) => v.configMap?.name === cm.metadata.name);
      expect(configVolume, 'a volume refers to the hashed ConfigMap name').toBeDefined();
      const container = pod.containers[0] as IContainer;
      const mount = container.volumeMounts?.find((m) => m.name === configVolume?.name);
      const configArg = container.args?.find((a) => a.startsWith('--config='))?.slice('--config='.length);
      expect(configArg).toBe(path.posix.join(mount?.mountPath ?? '?', Object.keys(cm.data)[0] ?? '?'));
      const config = parse(cm.data[Object.keys(cm.data)[0] ?? ''] ?? '') as { evidence?: { dir?: string } };
      const evidenceDir = config.evidence?.dir ?? '';
      const writable = container.volumeMounts?.find((m) => !m.readOnly && evidenceDir.startsWith(`${m.mountPath}/`));
      expect(writable, `evidence.dir ${evidenceDir} is on a writable mount`).toBeDefined();
      expect(pod.volumes?.find((v) => v.name === writable?.name)?.emptyDir).toBeDefined();
    });

    it('takes keys from Secret references, never from literal values', () => {
      const all = objects(overlay);
      expect(all.filter((o) => o.kind === 'Secret')).toEqual([]);
      const container = only<StatefulSetLike>(all, 'StatefulSet').spec.template.spec.containers[0] as IContainer;
      const key = container.env?.find((e) => e.name === 'AGENT_API_KEY');
      expect(key?.value).toBeUndefined();
      expect(key?.valueFrom?.secretKeyRef?.name).toBe(`${NAME}-keys`);
    });

    it('has a ConfigMap whose config passes `check-config`', async () => {
      requireBuiltCli();
      const cm = only<K8sObject & { data: Record<string, string> }>(objects(overlay), 'ConfigMap');
      const dir = mkdtempSync(path.join(os.tmpdir(), 'lfe-kube-'));
      tmpDirs.push(dir);
      const [file, text] = Object.entries(cm.data)[0] ?? ['', ''];
      writeFileSync(path.join(dir, file), text);
      const result = await runCli(['check-config', path.join(dir, file)]);
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
    });

    it('ships the alert and recording rules of alerts/ as its PrometheusRule', () => {
      const rule = only<K8sObject & { spec: { groups: unknown[] } }>(objects(overlay), 'PrometheusRule');
      expect(rule.spec.groups).toEqual(loadRuleGroups(path.join(REPO_ROOT, 'alerts')));
    });
  });

  it('the schema check rejects a broken object (so the checks above can fail)', () => {
    const sts = structuredClone(only<StatefulSetLike>(objects('sharded'), 'StatefulSet')) as unknown as {
      spec: { replicas: unknown };
    } & K8sObject;
    sts.spec.replicas = 'three';
    expect(() => validate(sts)).toThrow(/replicas must be integer/);
    const sm = structuredClone(
      only<K8sObject & { spec: { endpoints: Array<{ interval: string }> } }>(objects('sharded'), 'ServiceMonitor'),
    );
    (sm.spec.endpoints[0] as { interval: string }).interval = 'often';
    expect(() => validate(sm)).toThrow(/interval must match pattern/);
  });

  it('no object has a field its type does not know (the schemas above let unknown fields through)', () => {
    expect(unknownFieldErrors([...objects('single'), ...objects('sharded')], REPO_ROOT)).toEqual([]);
  }, 60_000);

  it('the field check rejects a typo, deep in a pod spec and in a ServiceMonitor', () => {
    const sts = structuredClone(only<StatefulSetLike>(objects('sharded'), 'StatefulSet'));
    const container = sts.spec.template.spec.containers[0] as IContainer & { securityContext: Record<string, unknown> };
    container.securityContext.runAsNonRot = true;
    expect(() => validate(sts)).not.toThrow();
    const sm = structuredClone(
      only<K8sObject & { spec: Record<string, unknown> }>(objects('sharded'), 'ServiceMonitor'),
    );
    sm.spec.namespaceSelecter = {};
    const errors = unknownFieldErrors([sts, sm], REPO_ROOT);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^StatefulSet ledger-fleet-exporter: .*'"runAsNonRot"' does not exist in type 'ISecurityContext'/,
    );
    expect(errors[1]).toMatch(/^ServiceMonitor ledger-fleet-exporter: .*'"namespaceSelecter"' does not exist/);
  }, 60_000);
});

describe('deploy/kubernetes/base/prometheusrule.yaml', () => {
  it('is current with alerts/ (run `npm run manifests` after changing the rules)', () => {
    expect(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).toBe(renderPrometheusRule());
  });
});
