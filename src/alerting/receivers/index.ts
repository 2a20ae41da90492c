// A notification -> the HTTP requests its receiver needs.
import type { Notification } from '../notification.js';
import { alertmanagerRequests, webhookRequests } from './alertmanager.js';
import { pagerdutyRequests } from './pagerduty.js';
import { slackRequests } from './slack.js';
import type { OutboundRequest, PayloadContext, ReceiverSpec } from './types.js';

export * from './types.js';

export function buildRequests(spec: ReceiverSpec, n: Notification, ctx: PayloadContext): OutboundRequest[] {
  switch (spec.kind) {
    case 'alertmanager':
      return alertmanagerRequests(spec, n, ctx);
    case 'webhook':
      return webhookRequests(spec, n, ctx);
    case 'slack':
      return slackRequests(spec, n, ctx);
    case 'pagerduty':
      return pagerdutyRequests(spec, n, ctx);
  }
}
