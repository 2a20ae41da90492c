// Results of the agent platform check, shared by the checker and its metrics view.
import type { AgentProfile } from './profile.js';

export type AgentKeyReason =
  | 'ok'
  | 'unauthorized'
  | 'forbidden'
  | 'server_error'
  | 'client_error'
  | 'timeout'
  | 'connect'
  | 'invalid_response'
  | 'no_key'
  | 'redirect';

export interface AgentPlatformCheck {
  /** Start of the check, ms since the epoch. */
  at: number;
  durationMs: number;
  /** The platform answered (any HTTP status < 500). */
  up: boolean;
  /** true on 2xx, false on 401/403 and when no key is configured, null when unknown. */
  keyValid: boolean | null;
  reason: AgentKeyReason;
  status?: number;
  profile?: AgentProfile;
}

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'error'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** What the metrics view reads from a checker (so metrics need not import the checker). */
export interface AgentCheckSource {
  last(): AgentPlatformCheck | undefined;
  lastKeyVerdict(): AgentPlatformCheck | undefined;
  counts(): Map<string, number>;
}
