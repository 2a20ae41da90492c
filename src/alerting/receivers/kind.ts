// The one interface a receiver kind implements (as gatus's alerting/provider/<kind>/ or
// Alertmanager's notify/<kind>/): its config section, the secrets it holds, how it delivers one
// notification group, and its start-up check. A kind is one module beside this one plus one line
// in registry.ts; nothing else in the code names a kind.
import type * as z from 'zod';
import type { SecretValue } from '../../domain.js';
import type { HttpClient } from '../../http/client.js';
import type { HttpOutcome, HttpRequest } from '../../http/index.js';
import type { Secrets } from '../../redact.js';
import type { Notification } from '../notify/notification.js';

/** One unit of a delivery, retried on its own (an alertmanager receiver has one per URL). */
export interface DeliveryPart {
  /** Names the part in logs and errors without its URL (which may be the secret). */
  label: string;
}

/** A part delivered as an HTTP POST through the project's HttpClient. */
export interface OutboundRequest extends DeliveryPart {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How one attempt at a part went, whatever carries it (HTTP, SMTP, ...). */
export interface DeliveryOutcome {
  ok: boolean;
  /** Worth another attempt (timeouts, connection errors, 5xx, 429, SMTP 4xx). */
  retryable: boolean;
  /** The service's answer code: an HTTP status, an SMTP reply code. */
  status?: number;
  /** Safe to log: no URL, no secret. */
  message?: string;
  /** The service asked to wait this long before the next attempt. */
  retryAfterMs?: number;
}

export interface PayloadContext {
  /** Base of links in notifications (status page, generatorURL). */
  externalUrl: string;
  /** ms */
  now: number;
}

/** What a kind's `send` may use. */
export interface DeliveryIO {
  client: HttpClient;
  /** Deadline of one attempt. */
  timeoutMs: number;
  /**
   * Aborted when the attempt's deadline passes (deadline.ts): a transport other than `client`
   * stops its work then; a kind that has not returned soon after is answered for as failed.
   */
  signal: AbortSignal;
  secrets: Secrets;
}

export interface DryCheckResult {
  receiver: string;
  ok: boolean;
  /** Safe to log: no URL path, no secret. */
  detail: string;
}

/** What a kind's dry check may use (it never sends a notification). */
export interface DryCheckIO {
  http: (req: HttpRequest) => Promise<HttpOutcome>;
  timeoutMs: number;
  /** Aborted when the check's deadline passes, as DeliveryIO's. */
  signal: AbortSignal;
}

/** One secret of a receiver: a value from the config, or a file read at start and whenever it changes. */
export interface SecretSlot {
  source: SecretValue;
  /** e.g. "webhook URL": errors say "cannot read receiver <name> webhook URL from <file>". */
  what: string;
}

/** Every receiver's common fields, set by the registry (the kind never sees `timeout`). */
export interface ReceiverBase {
  name: string;
  kind: string;
}

/** A receiver as the config resolved it: the common fields and its kind's settings. */
export type ReceiverSettings = ReceiverBase & { timeoutMs: number; [field: string]: unknown };

/** A receiver with its secrets read, ready to send: the common fields and its kind's spec. */
export type ReceiverSpec = ReceiverBase & { [field: string]: unknown };

/** Issues a kind's cross-field check raises (path relative to its section). */
export type IssueFn = (message: string, path?: Array<string | number>) => void;

/**
 * A receiver kind. `Raw` is its config section as validated, `Settings` the section resolved
 * (secrets still as values or files), `Spec` the receiver ready to send (secrets read), `Part` one
 * unit of a delivery.
 */
export interface ReceiverKind<
  Shape extends z.ZodRawShape,
  Settings extends object,
  Spec extends object,
  Part extends DeliveryPart,
> {
  /** The key of its section in a receiver, e.g. `slack`. */
  kind: string;
  /** One line for the configuration reference, e.g. "Slack incoming webhook: ...". */
  description: string;
  /** The section's fields with their defaults and checks (`timeout` is added for every kind). */
  fields: Shape;
  /**
   * Takes every active alert again while it fires, ungrouped, as Prometheus pushes to Alertmanager
   * (default: grouped notifications, as Alertmanager sends to people).
   */
  push?: boolean;
  /** Checks spanning fields (one of a value and its file, ...). */
  check?(raw: z.output<z.ZodObject<Shape>>, issue: IssueFn): void;
  /** The section resolved; `file` makes a config-relative path absolute. */
  resolve(raw: z.output<z.ZodObject<Shape>>, file: (path: string) => string): Settings;
  /** Every secret the receiver holds, by a key `build` reads it under. */
  secrets(settings: Settings): Record<string, SecretSlot | undefined>;
  /** The receiver ready to send; `secret(key)` is the value of a slot `secrets` named. */
  build(settings: Settings & ReceiverBase, secret: (key: string) => string | undefined): Spec;
  /** Texts derived from the secrets that are secrets too (an Authorization header a server may echo). */
  derivedSecrets?(spec: Spec): string[];
  /** One notification group as the parts this receiver delivers it in. */
  parts(spec: Spec & ReceiverBase, n: Notification, ctx: PayloadContext): Part[];
  /** Delivers one part once (the queue retries); never throws. */
  send(part: Part, io: DeliveryIO): Promise<DeliveryOutcome>;
  /** The start-up check (also `notify-test`'s reachability): it sends no notification. */
  dryCheck(spec: Spec & ReceiverBase, io: DryCheckIO): Promise<DryCheckResult>;
}

/** A kind as the registry holds it: the same members, its own types erased. */
export interface AnyReceiverKind {
  kind: string;
  description: string;
  fields: z.ZodRawShape;
  push?: boolean;
  check?(raw: Record<string, unknown>, issue: IssueFn): void;
  resolve(raw: Record<string, unknown>, file: (path: string) => string): object;
  secrets(settings: object): Record<string, SecretSlot | undefined>;
  build(settings: ReceiverBase, secret: (key: string) => string | undefined): object;
  derivedSecrets?(spec: object): string[];
  parts(spec: ReceiverBase, n: Notification, ctx: PayloadContext): DeliveryPart[];
  send(part: DeliveryPart, io: DeliveryIO): Promise<DeliveryOutcome>;
  dryCheck(spec: ReceiverBase, io: DryCheckIO): Promise<DryCheckResult>;
}

/**
 * Checks a kind against the interface and erases its types for the registry. Safe: the registry
 * hands each kind only what this same kind produced (its validated section, its settings, its spec,
 * its parts).
 */
export function defineReceiverKind<
  Shape extends z.ZodRawShape,
  Settings extends object,
  Spec extends object,
  Part extends DeliveryPart,
>(k: ReceiverKind<Shape, Settings, Spec, Part>): AnyReceiverKind {
  return k;
}
