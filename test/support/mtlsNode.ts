// A simulated ledger node behind a private CA with mutual TLS: in `dir` the CA (ca.crt), the
// node's leaf, the clients' CA (clients.crt) and a client certificate (monitor.crt/.key); on
// loopback a TLS terminator that asks for a client certificate of the clients' CA and pipes each
// connection to one simulated node (tls-1, mainnet).
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { SimFleet } from '../../src/sim/index.js';
import { CLIENT_EXT, issue, makeCa, serverExt, type Issued } from './testCa.js';

export interface MtlsNode {
  /** https://127.0.0.1:<port> of the terminator. */
  url: string;
  /** The node's certificate, for the names in `san`. */
  leaf: Issued;
  /** The client certificate the node accepts. */
  client: Issued;
  /** Stops the terminator and the simulated node. */
  close(): Promise<void>;
}

/**
 * Makes the certificates in `dir` (the node's leaf valid `leafDays` for `san`, e.g.
 * "IP:127.0.0.1"), starts the node and its terminator; `onConnection` sees each TLS connection.
 */
export async function startMtlsNode(
  dir: string,
  o: { san: string; leafDays: number; onConnection?: () => void },
): Promise<MtlsNode> {
  makeCa(dir, 'ca', 60);
  const leaf = issue(dir, 'ca', 'node', o.leafDays, serverExt(o.san));
  makeCa(dir, 'clients', 60);
  const client = issue(dir, 'clients', 'monitor', 30, CLIENT_EXT);
  const fleet = await SimFleet.start([{ name: 'tls-1', network: 'mainnet', build: 'current' }], {
    host: '127.0.0.1',
    layout: 'port-per-node',
    blockTimeMs: 1000,
  });
  const upstream = new URL(fleet.nodes[0]!.url);
  const terminator = tls.createServer(
    {
      key: readFileSync(leaf.key),
      cert: readFileSync(leaf.cert),
      ca: readFileSync(join(dir, 'clients.crt')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (socket) => {
      o.onConnection?.();
      const up = net.connect(Number(upstream.port), upstream.hostname);
      socket.pipe(up).pipe(socket);
      socket.on('error', () => up.destroy());
      up.on('error', () => socket.destroy());
    },
  );
  try {
    await new Promise<void>((resolve, reject) => terminator.once('error', reject).listen(0, '127.0.0.1', resolve));
  } catch (err) {
    await fleet.close();
    throw err;
  }
  return {
    url: `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`,
    leaf,
    client,
    async close() {
      terminator.close();
      await fleet.close();
    },
  };
}
