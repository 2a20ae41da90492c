// Unknown fields in Kubernetes objects. The JSON schemas of kubernetes-models 4.x let unknown
// properties through, so a typo (`runAsNonRot`) would pass them; the same package's TypeScript
// interfaces, generated from the same OpenAPI definitions, do not: TypeScript's excess-property
// check on an object literal is recursive. This compiles each object as a literal of its type.
import path from 'node:path';
import ts from 'typescript';

/** apiVersion/kind -> [module, interface] of kubernetes-models and @kubernetes-models/prometheus-operator. */
const TYPES: Record<string, [string, string]> = {
  'v1/ServiceAccount': ['kubernetes-models/v1/ServiceAccount', 'IServiceAccount'],
  'v1/ConfigMap': ['kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  'v1/Service': ['kubernetes-models/v1/Service', 'IService'],
  'apps/v1/StatefulSet': ['kubernetes-models/apps/v1/StatefulSet', 'IStatefulSet'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  'networking.k8s.io/v1/NetworkPolicy': ['kubernetes-models/networking.k8s.io/v1/NetworkPolicy', 'INetworkPolicy'],
  'monitoring.coreos.com/v1/ServiceMonitor': [
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    'IServiceMonitor',
  ],
  'monitoring.coreos.com/v1/PrometheusRule': [
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    'IPrometheusRule',
  ],
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

/**
 * prometheus-operator's Rule gained `keep_firing_for` in mid-2023 (PR #5651); the 4.x models predate
 * it, and the models that have it need Node 22. Our rules' values are checked by promtool and
 * compared with alerts/ elsewhere, so the field is taken out here, and only there.
 */
function withoutNewerFields(o: Manifest): Manifest {
  if (o.kind !== 'PrometheusRule') return o;
  const copy = structuredClone(o) as Manifest & {
    spec?: { groups?: Array<{ rules?: Array<Record<string, unknown>> }> };
  };
  for (const g of copy.spec?.groups ?? []) for (const r of g.rules ?? []) delete r.keep_firing_for;
  return copy;
}

/**
 * Type errors of the objects against their interfaces, as "Kind name: message" lines; empty when
 * every field of every object is known (and of the right type).
 */
export function unknownFieldErrors(objects: readonly Manifest[], repoRoot: string): string[] {
  // A file that exists only in memory, placed in the repository so node_modules resolves.
  const file = path.join(repoRoot, 'test', '__manifests_as_literals__.ts');
  const lines: string[] = [];
  const owners: Array<{ start: number; name: string }> = [];
  objects.forEach((o, i) => {
    const known = TYPES[`${o.apiVersion}/${o.kind}`];
    if (!known) throw new Error(`${o.apiVersion} ${o.kind} ${o.metadata.name}: no type known to this check`);
    lines.push(`import type { ${known[1]} as T${i} } from '${known[0]}';`);
  });
  let offset = lines.join('\n').length + 1;
  objects.forEach((o, i) => {
    const line = `export const o${i}: T${i} = ${JSON.stringify(withoutNewerFields(o))};`;
    owners.push({ start: offset, name: `${o.kind} ${o.metadata.name}` });
    offset += line.length + 1;
    lines.push(line);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => f === file || fileExists.call(host, f);
  host.readFile = (f) => (f === file ? source : readFile.call(host, f));
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, source, lang) : getSourceFile.call(host, f, lang, ...rest);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
    const owner = [...owners].reverse().find((o) => (d.start ?? 0) >= o.start)?.name ?? 'imports';
    return `${owner}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
