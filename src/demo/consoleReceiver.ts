// The demo's receiver: an Alertmanager-style webhook endpoint on loopback that prints one line per
// alert of each notification, so a new user sees the built-in engine page someone (and resolve)
// in the terminal, through the same webhook delivery a real deployment uses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the demo prints of one alert of a webhook payload (version "4"). */
interface WebhookAlert {
  status?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const MAX_BODY = 1024 * 1024;

/** One line per alert: status, name, severity, node or network, summary. */
export function notificationLines(payload: unknown): string[] {
  const alerts = (payload as { alerts?: WebhookAlert[] } | null)?.alerts;
  if (!Array.isArray(alerts)) return [];
  return alerts.map((a) => {
    const l = a.labels ?? {};
    const where = l.node ? `${l.node} (${l.network ?? '?'})` : (l.network ?? '');
    const status = (a.status ?? '?').toUpperCase().padEnd(8);
    return (
      `[demo receiver] ${status} ${l.alertname ?? '?'} ${l.severity ?? ''} ${where}: ` +
      `${a.annotations?.summary ?? ''}`
    ).replace(/ +/g, ' ');
  });
}

export interface ConsoleReceiver {
  /** The webhook URL to configure. */
  url: string;
  /** Notifications received so far. */
  received(): number;
  close(): Promise<void>;
}

export async function startConsoleReceiver(print: (line: string) => void): Promise<ConsoleReceiver> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      received++;
      for (const line of notificationLines(payload)) print(line);
      res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
