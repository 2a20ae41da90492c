// Receivers as configured (secrets already read), and the requests a notification becomes.

export interface BasicAuth {
  username: string;
  password: string;
}

export type ReceiverSpec =
  | { name: string; kind: 'alertmanager'; urls: string[]; bearerToken?: string; basicAuth?: BasicAuth }
  | { name: string; kind: 'webhook'; url: string; headers: Record<string, string> }
  | { name: string; kind: 'slack'; webhookUrl: string; channel?: string }
  | { name: string; kind: 'pagerduty'; routingKey: string; url: string };

export type ReceiverKind = ReceiverSpec['kind'];

export const DEFAULT_PAGERDUTY_URL = 'https://events.pagerduty.com/v2/enqueue';

/** One HTTP request of a delivery (an alertmanager receiver sends one per URL). */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Names the request in logs and errors without its URL (which may be the secret). */
  label: string;
}

export interface PayloadContext {
  /** Base of links in notifications (status page, generatorURL). */
  externalUrl: string;
  /** ms */
  now: number;
}
