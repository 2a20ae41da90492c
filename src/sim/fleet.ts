// A fleet of simulated nodes on loopback, in one of two layouts:
//   port-per-node: each node listens on its own ephemeral port (closest to real deployments);
//   shared-port:   one server, nodes under /n/<name> (cheap: 1,000 nodes cost one socket).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimChain } from './chain.js';
import { controlRoute } from './control.js';
import { ChainControl } from './ledger-control.js';
import { SimNode, type SimEnv } from './node.js';
import { closeServer, listen } from './serve.js';
import { isSimFault, type SimFleetOptions, type SimNodeSpec } from './types.js';

const BUILDS = new Set(['earliest', 'staking', 'current']);
const MAX_CONTROL_BODY = 64 * 1024;

export class SimFleet {
  readonly nodes: SimNode[];
  private readonly byName: Map<string, SimNode>;
  private readonly networks: Map<string, ChainControl>;
  private sharedServer: http.Server | undefined;
  private controlServer: http.Server | undefined;
  private _controlUrl: string | undefined;

  private constructor(nodes: SimNode[], chains: Map<string, SimChain>) {
    this.nodes = nodes;
    this.byName = new Map(nodes.map((n) => [n.name, n]));
    this.networks = new Map([...chains].map(([name, chain]) => [name, new ChainControl(chain)]));
  }

  get controlUrl(): string | undefined {
    return this._controlUrl;
  }

  static async start(specs: SimNodeSpec[], opts: SimFleetOptions = {}): Promise<SimFleet> {
    validateSpecs(specs);
    const env: SimEnv = {
      host: opts.host ?? '127.0.0.1',
      layout: opts.layout ?? 'port-per-node',
      now: opts.now ?? Date.now,
      flapPeriodMs: opts.flapPeriodMs ?? 6_000,
      slowBodyBytes: Math.max(1, opts.slowBodyBytes ?? 8),
      slowBodyTickMs: Math.max(1, opts.slowBodyTickMs ?? 500),
      keepAliveTimeoutMs: opts.keepAliveTimeoutMs,
    };
    const blockTimeMs = opts.blockTimeMs ?? 3_000;
    if (!(blockTimeMs > 0)) throw new Error('blockTimeMs must be positive');
    const startMs = env.now();
    const chains = new Map<string, SimChain>();
    const nodes = specs.map((spec) => {
      const network = spec.network ?? 'simnet';
      let chain = chains.get(network);
      if (!chain) {
        chain = new SimChain(network, {
          blockTimeMs,
          startMs,
          now: env.now,
          epochBlocks: opts.epochBlocks,
          unbondingBlocks: opts.unbondingBlocks,
        });
        chains.set(network, chain);
      }
      return new SimNode(spec, chain, env);
    });
    const fleet = new SimFleet(nodes, chains);
    try {
      if (env.layout === 'shared-port') {
        const server = http.createServer((req, res) => fleet.routeShared(req, res));
        if (env.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = env.keepAliveTimeoutMs;
        fleet.sharedServer = server;
        await listen(server, opts.port ?? 0, env.host);
        const base = `http://${env.host}:${(server.address() as AddressInfo).port}`;
        for (const n of nodes) n.attachShared(base);
      } else {
        // Bounded parallelism: a thousand listens at once gains nothing on two cores.
        for (let i = 0; i < nodes.length; i += 64)
          await Promise.all(nodes.slice(i, i + 64).map((n) => n.listenInitial()));
      }
      if (opts.controlPort !== undefined && opts.controlPort !== false)
        await fleet.startControl(opts.controlHost ?? env.host, opts.controlPort);
      specs.forEach((spec, i) => {
        if (spec.fault && spec.fault !== 'none') nodes[i]!.setFault(spec.fault);
      });
      await Promise.all(nodes.filter((n) => n.fault() === 'down').map((n) => n.kill()));
    } catch (e) {
      await fleet.close();
      throw e;
    }
    return fleet;
  }

  node(name: string): SimNode {
    const n = this.byName.get(name);
    if (!n) throw new Error(`unknown simulated node: ${name}`);
    return n;
  }

  /** The ledger of one network: its state, and the faults of its validators, miners and accounts. */
  chain(network: string): ChainControl {
    const c = this.networks.get(network);
    if (!c) throw new Error(`unknown simulated network: ${network}`);
    return c;
  }

  async close(): Promise<void> {
    const servers = [this.sharedServer, this.controlServer].filter((s): s is http.Server => s !== undefined);
    await Promise.all([...this.nodes.map((n) => n.shutdown()), ...servers.filter((s) => s.listening).map(closeServer)]);
  }

  private routeShared(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    const m = /^\/n\/([^/]+)(\/.*)?$/.exec(path);
    let node: SimNode | undefined;
    if (m) {
      try {
        node = this.byName.get(decodeURIComponent(m[1]!));
      } catch {
        node = undefined;
      }
    }
    if (!node) {
      req.resume();
      res.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    node.handle(req, res, m![2] ?? '/');
  }

  private async startControl(host: string, port: number): Promise<void> {
    const target = { nodes: this.nodes, find: (name: string) => this.byName.get(name), networks: this.networks };
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_CONTROL_BODY) chunks.push(c);
      });
      req.on('end', () => {
        const done =
          size > MAX_CONTROL_BODY
            ? Promise.resolve({
                status: 413,
                headers: { 'content-type': 'application/json' },
                body: '{"error":"body too large"}',
              })
            : controlRoute(target, req.method ?? 'GET', req.url ?? '/', Buffer.concat(chunks).toString('utf8'));
        done
          .then((r) =>
            res.writeHead(r.status, { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) }).end(r.body),
          )
          .catch(() => res.destroy());
      });
    });
    this.controlServer = server;
    await listen(server, port, host);
    this._controlUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
  }
}

function validateSpecs(specs: SimNodeSpec[]): void {
  const seen = new Set<string>();
  for (const s of specs) {
    if (!s.name) throw new Error('every simulated node needs a name');
    if (seen.has(s.name)) throw new Error(`duplicate simulated node name: ${s.name}`);
    seen.add(s.name);
    if (s.build !== undefined && !BUILDS.has(s.build))
      throw new Error(`unknown build for ${s.name}: ${String(s.build)}`);
    if (s.fault !== undefined && !isSimFault(s.fault))
      throw new Error(`unknown fault for ${s.name}: ${String(s.fault)}`);
    if (s.namespace !== undefined && !/^[a-z][a-z0-9]*$/i.test(s.namespace))
      throw new Error(`bad namespace for ${s.name}: ${s.namespace}`);
  }
}
