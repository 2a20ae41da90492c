// Every receiver kind, one line each. A kind registered at run time (a test, an embedding program)
// must be registered before the first config is parsed: the config schema is built from this list.
import { alertmanagerKind } from './alertmanager.js';
import { discordKind } from './discord.js';
import { emailKind } from './email.js';
import type { AnyReceiverKind } from './kind.js';
import { msteamsKind } from './msteams.js';
import { ntfyKind } from './ntfy.js';
import { opsgenieKind } from './opsgenie.js';
import { pagerdutyKind } from './pagerduty.js';
import { slackKind } from './slack.js';
import { telegramKind } from './telegram.js';
import { webhookKind } from './webhook.js';

const KINDS = new Map<string, AnyReceiverKind>();
let frozen = false;

export function registerReceiverKind(k: AnyReceiverKind): void {
  if (frozen)
    throw new Error(
      `receiver kind "${k.kind}" registered after the config schema was built: register kinds before parsing a config`,
    );
  if (KINDS.has(k.kind)) throw new Error(`receiver kind "${k.kind}" is registered twice`);
  KINDS.set(k.kind, k);
}

registerReceiverKind(alertmanagerKind);
registerReceiverKind(webhookKind);
registerReceiverKind(slackKind);
registerReceiverKind(pagerdutyKind);
registerReceiverKind(telegramKind);
registerReceiverKind(discordKind);
registerReceiverKind(ntfyKind);
registerReceiverKind(msteamsKind);
registerReceiverKind(opsgenieKind);
registerReceiverKind(emailKind);

/** Every kind, in registration order; `forSchema` freezes the list (the schema cannot change later). */
export function receiverKinds(forSchema = false): AnyReceiverKind[] {
  if (forSchema) frozen = true;
  return [...KINDS.values()];
}

export function receiverKind(kind: string): AnyReceiverKind {
  const k = KINDS.get(kind);
  if (!k) throw new Error(`unknown receiver kind "${kind}"`);
  return k;
}
