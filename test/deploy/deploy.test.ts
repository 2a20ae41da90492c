// Deployment files: Docker is not available here, so everything that can be checked without it
// is: the compose file's services, ports and mounts (against files in the repository), the
// Prometheus config with promtool (our real rule files mounted as in the container), the
// Alertmanager config with amtool, Grafana provisioning paths, the Dockerfile's structure, and
// its HEALTHCHECK command run for real against a loopback server.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { checkTools, requireTool } from '../support/prometheus-tools.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: string[];
}
const compose = parseYaml(readFileSync(path.join(DEPLOY, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;

/** Bind mounts of a service: host path (resolved from deploy/) -> container path. Named volumes are left out. */
function bindMounts(service: string): Array<{ host: string; container: string; readOnly: boolean }> {
  return (services[service]?.volumes ?? [])
    .map((v) => v.split(':'))
    .filter(([src]) => src !== undefined && (src.startsWith('.') || src.startsWith('/')))
    .map(([src, dst, mode]) => ({
      host: path.resolve(DEPLOY, src as string),
      container: dst as string,
      readOnly: mode === 'ro',
    }));
}

function mountFor(service: string, containerPath: string): { host: string; container: string } | undefined {
  return bindMounts(service).find((m) => containerPath === m.container || containerPath.startsWith(`${m.container}/`));
}

/** The host path that holds what the container sees at containerPath. */
function hostPathOf(service: string, containerPath: string): string | undefined {
  const m = mountFor(service, containerPath);
  return m && path.join(m.host, path.relative(m.container, containerPath));
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

describe('deploy/docker-compose.yml', () => {
  it('has the exporter in demo mode, Prometheus, Alertmanager and Grafana with their ports', () => {
    expect(Object.keys(services).sort()).toEqual(['alertmanager', 'exporter', 'grafana', 'prometheus']);
    expect(services.exporter?.command?.[0]).toBe('demo');
    expect(services.exporter?.command).toContain('0.0.0.0:9715');
    const ports = Object.fromEntries(Object.entries(services).map(([name, s]) => [name, s.ports]));
    expect(ports).toEqual({
      exporter: ['9715:9715'],
      prometheus: ['9090:9090'],
      alertmanager: ['9093:9093'],
      grafana: ['3000:3000'],
    });
    for (const [name, s] of Object.entries(services)) {
      if (name === 'exporter') continue;
      expect(s.image, name).toMatch(/^[\w./-]+:v?\d+\.\d+\.\d+$/); // pinned, never :latest
    }
  });

  it('builds the exporter from the repository Dockerfile', () => {
    const build = services.exporter?.build;
    expect(build).toBeDefined();
    const context = path.resolve(DEPLOY, build?.context ?? '');
    expect(context).toBe(ROOT);
    expect(existsSync(path.join(context, build?.dockerfile ?? 'Dockerfile'))).toBe(true);
  });

  it('mounts only files that exist in the repository, read-only, and declares its named volumes', () => {
    let count = 0;
    for (const name of Object.keys(services)) {
      for (const m of bindMounts(name)) {
        count++;
        expect(existsSync(m.host), `${name}: ${m.host}`).toBe(true);
        expect(m.host.startsWith(ROOT + path.sep), `${name}: ${m.host} inside the repository`).toBe(true);
        expect(m.readOnly, `${name}: ${m.container} read-only`).toBe(true);
      }
      for (const v of services[name]?.volumes ?? []) {
        const src = v.split(':')[0] ?? '';
        if (!src.startsWith('.') && !src.startsWith('/'))
          expect(compose.volumes, `named volume ${src}`).toHaveProperty(src);
      }
    }
    expect(count).toBeGreaterThanOrEqual(5);
  });

  it('gives Prometheus our config and the alerts/ folder where the config expects them', () => {
    const configHost = hostPathOf('prometheus', '/etc/prometheus/prometheus.yml');
    expect(configHost).toBe(path.join(DEPLOY, 'prometheus.yml'));
    const prom = parseYaml(readFileSync(configHost as string, 'utf8')) as { rule_files: string[] };
    for (const pattern of prom.rule_files) {
      const inContainer = path.posix.resolve('/etc/prometheus', pattern);
      const host = hostPathOf('prometheus', path.posix.dirname(inContainer));
      expect(host, `rule_files ${pattern}`).toBe(path.join(ROOT, 'alerts'));
    }
    expect(services.prometheus?.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
  });

  it('gives Alertmanager deploy/alertmanager.yml', () => {
    const arg = services.alertmanager?.command?.find((c) => c.startsWith('--config.file='));
    expect(hostPathOf('alertmanager', (arg ?? '').slice('--config.file='.length))).toBe(
      path.join(DEPLOY, 'alertmanager.yml'),
    );
  });

  it('provisions Grafana with our datasource and dashboards', () => {
    const provisioning = hostPathOf('grafana', '/etc/grafana/provisioning');
    expect(provisioning).toBe(path.join(ROOT, 'grafana', 'provisioning'));
    const providers = parseYaml(
      readFileSync(path.join(provisioning as string, 'dashboards', 'ledger-fleet-exporter.yml'), 'utf8'),
    ) as {
      apiVersion: number;
      providers: Array<{ type: string; options: { path: string } }>;
    };
    expect(providers.apiVersion).toBe(1);
    expect(providers.providers).toHaveLength(1);
    const dashboardsPath = providers.providers[0]?.options.path ?? '';
    // The provider's path is where compose mounts grafana/dashboards, which holds our dashboards.
    expect(hostPathOf('grafana', dashboardsPath)).toBe(path.join(ROOT, 'grafana', 'dashboards'));
    expect(existsSync(path.join(ROOT, 'grafana', 'dashboards', 'fleet-overview.json'))).toBe(true);
    const home = services.grafana?.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? '';
    expect(existsSync(hostPathOf('grafana', home) ?? '/nonexistent'), `home dashboard ${home}`).toBe(true);

    const ds = parseYaml(readFileSync(path.join(provisioning as string, 'datasources', 'prometheus.yml'), 'utf8')) as {
      apiVersion: number;
      datasources: Array<{ type: string; url: string; isDefault?: boolean; jsonData?: { timeInterval?: string } }>;
    };
    expect(ds.apiVersion).toBe(1);
    const prometheusDs = ds.datasources.find((d) => d.type === 'prometheus');
    const url = new URL(prometheusDs?.url ?? 'http://invalid');
    expect(Object.keys(services)).toContain(url.hostname);
    expect(services[url.hostname]?.ports?.[0]?.split(':')[1]).toBe(url.port);
    // $__rate_interval is derived from the datasource's scrape interval: keep them equal.
    const prom = parseYaml(readFileSync(path.join(DEPLOY, 'prometheus.yml'), 'utf8')) as {
      global: { scrape_interval: string };
    };
    expect(prometheusDs?.jsonData?.timeInterval).toBe(prom.global.scrape_interval);
  });
});

describe('deploy/prometheus.yml', () => {
  const prom = parseYaml(readFileSync(path.join(DEPLOY, 'prometheus.yml'), 'utf8')) as {
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
  };

  it('scrapes the exporter service under the job name the LedgerExporterDown rule selects', () => {
    const job = prom.scrape_configs.find((j) => j.static_configs.some((s) => s.targets.includes('exporter:9715')));
    expect(job).toBeDefined();
    const rules = readFileSync(path.join(ROOT, 'alerts', 'ledger-fleet-exporter.rules.yml'), 'utf8');
    const down = (parseYaml(rules) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> }).groups
      .flatMap((g) => g.rules)
      .find((r) => r.alert === 'LedgerExporterDown');
    expect(down?.expr).toContain(`job="${job?.job_name}"`);
  });

  it('sends alerts to the alertmanager service', () => {
    const targets = prom.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((s) => s.targets));
    expect(targets).toEqual(['alertmanager:9093']);
  });
});

describe('checked with the Debian Prometheus tools', () => {
  const tools = checkTools(['promtool', 'amtool']);

  it.skipIf(tools.skip)(
    `promtool check config loads deploy/prometheus.yml and our rule files as mounted in the ` +
      `container${tools.skipNote}`,
    async () => {
      const promtool = requireTool(tools, 'promtool');
      // Mirror the container's layout: /etc/prometheus/prometheus.yml and the mounted alerts/ beside it.
      const root = mkdtempSync(path.join(os.tmpdir(), 'deploy-prom-'));
      tmpDirs.push(root);
      const etc = path.join(root, 'etc', 'prometheus');
      mkdirSync(etc, { recursive: true });
      copyFileSync(path.join(DEPLOY, 'prometheus.yml'), path.join(etc, 'prometheus.yml'));
      symlinkSync(hostPathOf('prometheus', '/etc/prometheus/alerts') as string, path.join(etc, 'alerts'));
      const { stdout, stderr } = await run(promtool, ['check', 'config', path.join(etc, 'prometheus.yml')], {
        timeout: 20_000,
      });
      const out = stdout + stderr;
      // A rule_files glob that matches nothing passes silently: insist that the rules were found.
      expect(out).toMatch(/SUCCESS: [1-9]\d* rule files found/);
      expect(out).toContain('ledger-fleet-exporter.rules.yml');
      expect(out).toMatch(/SUCCESS: [1-9]\d* rules found/);
    },
  );

  it.skipIf(tools.skip)(`promtool check config rejects a config whose rules do not load${tools.skipNote}`, async () => {
    const promtool = requireTool(tools, 'promtool');
    const root = mkdtempSync(path.join(os.tmpdir(), 'deploy-prom-bad-'));
    tmpDirs.push(root);
    mkdirSync(path.join(root, 'alerts'));
    copyFileSync(path.join(DEPLOY, 'prometheus.yml'), path.join(root, 'prometheus.yml'));
    // Same layout, but a broken rule file: proves the check above reads the rules it finds.
    writeFileSync(
      path.join(root, 'alerts', 'broken.rules.yml'),
      'groups:\n  - name: g\n    rules:\n      - alert: X\n        expr: rate(foo[5m]\n',
    );
    await expect(
      run(promtool, ['check', 'config', path.join(root, 'prometheus.yml')], { timeout: 20_000 }),
    ).rejects.toMatchObject({ code: 1 });
  });

  it.skipIf(tools.skip)(`amtool check-config accepts deploy/alertmanager.yml${tools.skipNote}`, async () => {
    const amtool = requireTool(tools, 'amtool');
    const { stdout, stderr } = await run(amtool, ['check-config', path.join(DEPLOY, 'alertmanager.yml')], {
      timeout: 20_000,
    });
    expect(stdout + stderr).toContain('SUCCESS');
    expect(stdout + stderr).toMatch(/[1-9]\d* receivers/);
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  // Instructions with their continuation lines joined, comments dropped.
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = instructions.reduce<string[][]>((acc, l) => {
    if (/^FROM\s/i.test(l)) acc.push([l]);
    else acc.at(-1)?.push(l);
    return acc;
  }, []);
  const final = stages.at(-1) ?? [];

  it('is multi-stage on a current Node LTS slim image, with npm ci, a build and pruned dev dependencies', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const image = /^ARG NODE_IMAGE=(\S+)/m.exec(text)?.[1] ?? '';
    const major = Number(/^node:(\d+)/.exec(image)?.[1]);
    expect(image).toMatch(/slim/);
    // Even majors up to 26 and every major from 27 on are LTS lines; 26 is the oldest still current in late 2026.
    expect(major).toBeGreaterThanOrEqual(26);
    expect(major % 2 === 0 || major >= 27).toBe(true);
    const build = stages[0]?.join('\n') ?? '';
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
    // The runtime stage takes compiled code and pruned modules from the build, never sources.
    expect(final.some((l) => /^COPY --from=build \S*node_modules/.test(l))).toBe(true);
    expect(final.some((l) => /^COPY --from=build \S*dist/.test(l))).toBe(true);
    expect(final.some((l) => /^COPY\s+(?!--from)\S*src\b/.test(l))).toBe(false);
  });

  it('runs as the non-root node user, exposes 9715 and 9716 and defaults to the demo on all interfaces', () => {
    const users = final.filter((l) => /^USER\s/.test(l));
    expect(users.at(-1)).toBe('USER node');
    const exposed = final.filter((l) => /^EXPOSE\s/.test(l)).flatMap((l) => l.split(/\s+/).slice(1));
    expect(exposed).toEqual(['9715', '9716']);
    const entry = JSON.parse(
      final.find((l) => l.startsWith('ENTRYPOINT '))?.slice('ENTRYPOINT '.length) ?? '[]',
    ) as string[];
    const cmd = JSON.parse(final.find((l) => l.startsWith('CMD '))?.slice('CMD '.length) ?? '[]') as string[];
    expect(entry).toEqual(['node', 'dist/cli.js']);
    expect(cmd[0]).toBe('demo');
    expect(cmd).toContain('0.0.0.0:9715');
    expect(cmd).toContain('0.0.0.0:9716');
  });

  it('copies only paths that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const must of ['node_modules', 'dist', '.git']) expect(ignored).toContain(must);
    const copies = instructions.filter((l) => /^COPY\s/.test(l) && !/--from=/.test(l));
    expect(copies.length).toBeGreaterThan(3);
    for (const l of copies) {
      const parts = l
        .split(/\s+/)
        .slice(1)
        .filter((p) => !p.startsWith('--'));
      for (const src of parts.slice(0, -1)) {
        expect(existsSync(path.join(ROOT, src)), `COPY ${src}`).toBe(true);
        expect(
          ignored.includes(src) || ignored.includes(src.split('/')[0] ?? ''),
          `${src} is not in .dockerignore`,
        ).toBe(false);
      }
    }
    expect(statSync(path.join(ROOT, 'package-lock.json')).isFile()).toBe(true);
  });

  describe('HEALTHCHECK', () => {
    const line = final.find((l) => l.startsWith('HEALTHCHECK ')) ?? '';
    const cmd = JSON.parse(/CMD\s+(\[.*\])\s*$/.exec(line)?.[1] ?? '[]') as string[];
    let status = 200;
    const server = http.createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? status : 404;
      res.end();
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    async function healthcheck(url: string): Promise<number> {
      // The exact command of the Dockerfile, run with this machine's node.
      expect(cmd[0]).toBe('node');
      try {
        await run(process.execPath, cmd.slice(1), { timeout: 15_000, env: { ...process.env, HEALTHCHECK_URL: url } });
        return 0;
      } catch (e) {
        return (e as { code?: number }).code ?? -1;
      }
    }

    it('uses node itself (no curl in the slim image) against /healthz', () => {
      expect(line).toMatch(/--interval=\S+/);
      expect(cmd.slice(0, 2)).toEqual(['node', '-e']);
      expect(cmd[2]).toContain('http://127.0.0.1:9715/healthz');
    });

    it('passes when /healthz answers 200, fails on 503, on a wrong path and when nothing listens', async () => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(await healthcheck(`${base}/healthz`)).toBe(0);
      status = 503;
      expect(await healthcheck(`${base}/healthz`)).toBe(1);
      expect(await healthcheck(`${base}/other`)).toBe(1);
      // A port nothing listens on: take one and release it.
      const probe = http.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const freePort = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      expect(await healthcheck(`http://127.0.0.1:${freePort}/healthz`)).toBe(1);
    });
  });
});
