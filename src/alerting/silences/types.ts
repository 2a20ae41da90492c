// Silences and acknowledgements as the rest of the exporter sees them: the HTTP API (Alertmanager
// API v2 shapes), the command line, the status page, Telegram commands and the peer replication
// all speak these types, so none of them needs the store's internals. Times are wall-clock ms.
import type { Labels } from '../rules/types.js';

/** One Alertmanager matcher: `=` (isEqual, !isRegex), `!=`, `=~` (isRegex), `!~`. */
export interface Matcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

export type SilenceState = 'pending' | 'active' | 'expired';

/** Marks a POST of a silence as a peer's copy (applied by newest `updatedAt`), not a user's write. */
export const REPLICATION_HEADER = 'x-ledger-replication';

/** Who changed a silence and through which interface; logged and kept, never a secret. */
export interface Actor {
  /** The basic-auth user, the Telegram user ("telegram:123456789") or the peer's name. */
  user: string;
  via: 'api' | 'cli' | 'page' | 'telegram' | 'peer';
}

export interface Silence {
  id: string;
  matchers: readonly Matcher[];
  startsAt: number;
  endsAt: number;
  createdBy: string;
  comment: string;
  updatedAt: number;
  /** An acknowledgement: the fingerprint of the one alert it quiets until that alert resolves. */
  ackOf?: string;
}

/** What a writer sends (Alertmanager's postableSilence); `id` updates an existing silence. */
export interface PostableSilence {
  id?: string;
  matchers: readonly Matcher[];
  startsAt: number;
  endsAt: number;
  createdBy: string;
  comment: string;
}

/** A refused write: `status` is the HTTP status the API answers (400, 404), `error` the reason. */
export interface SilenceRefusal {
  status: number;
  error: string;
}

export type SilenceWrite = { id: string } | SilenceRefusal;

export interface SilenceService {
  /** Every kept silence with its state at `now` (expired ones are kept 5 days). */
  list(now: number): Array<Silence & { state: SilenceState }>;
  get(id: string, now: number): (Silence & { state: SilenceState }) | undefined;
  /** Creates, or updates when `id` names a silence (an update of an active one keeps its id). */
  upsert(input: PostableSilence, actor: Actor, now: number): SilenceWrite;
  /** Expires a silence now (Alertmanager's DELETE); an expired one is left as it is. */
  expire(id: string, actor: Actor, now: number): SilenceWrite;
  /**
   * Silences exactly the labels of the active alert with this fingerprint until it resolves;
   * `createdBy` (default the actor's user) is the name the ack shows, as a silence's createdBy.
   */
  ack(fingerprint: string, actor: Actor, comment: string, now: number, createdBy?: string): SilenceWrite;
  /** Ids of the active silences whose matchers all match these labels. */
  silencedBy(labels: Labels, now: number): string[];
  /** A change made here (not one applied from a peer): what the peer replication sends on. */
  onChange(listener: (s: Silence) => void): () => void;
  /** A peer's copy: taken when it is new or its `updatedAt` is newer than ours. */
  applyRemote(s: Silence, now: number): boolean;
}
