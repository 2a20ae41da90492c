// The demo's receiver: an Alertmanager-style webhook endpoint on loopback that prints one short
// block per notification, so a new user sees the built-in engine page someone (and resolve)
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

/** Alerts shown per block; the rest are counted in one line. */
const MAX_SHOWN = 5;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * One short block per notification: a head line (the notification's status and how many alerts),
 * then one indented line per alert (status, name, severity, node or network, summary), at most MAX_SHOWN.
 * Undefined when the payload carries no alerts.
 */
export function notificationBlock(payload: unknown): string | undefined {
  const p = payload as { status?: string; alerts?: WebhookAlert[] } | null;
  const alerts = p?.alerts;
  if (!Array.isArray(alerts) || alerts.length === 0) return undefined;
  const status = p?.status ?? alerts[0]?.status ?? '?';
  const count = `${alerts.length} alert${alerts.length === 1 ? '' : 's'}`;
  const head = `[demo receiver] notification (${status}, ${count}):`;
  const lines = alerts.slice(0, MAX_SHOWN).map((a) => {
    const l = a.labels ?? {};
    const where = l.node ? `${l.node} (${l.network ?? '?'})` : (l.network ?? '');
    const parts = [(a.status ?? '?').toUpperCase(), l.alertname ?? '?', l.severity ?? '', where]
      .filter(Boolean)
      .join(' ');
    const summary = a.annotations?.summary ? `: ${a.annotations.summary}` : '';
    return `  ${oneLine(`${parts}${summary}`)}`;
  });
  if (alerts.length > MAX_SHOWN) lines.push(`  ... and ${alerts.length - MAX_SHOWN} more`);
  return [oneLine(head), ...lines].join('\n');
}

export interface ConsoleReceiver {
  /** The webhook URL to configure. */
  url: string;
  /** Notifications received so far. */
  received(): number;
  close(): Promise<void>;
}

/** `print` gets one block (lines joined by "\n", no trailing newline) per notification. */
export async function startConsoleReceiver(print: (block: string) => void): Promise<ConsoleReceiver> {
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
      const block = notificationBlock(payload);
      if (block !== undefined) print(block);
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
