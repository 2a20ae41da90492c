// The JSON the page script reads (/api/v1/nodes, /api/v1/nodes/<name>, /api/v1/session,
// /api/v2/alerts and /api/v2/silences), only the fields it uses. Types only: the server's
// answers are checked against them at compile time (test/status/browser-api-types.unit.test.ts).

export type Status = 'up' | 'degraded' | 'down' | 'unknown';
export type PollOutcome = 'up' | 'degraded' | 'down';

export interface Poll {
  at: number;
  outcome: PollOutcome;
  durationMs: number;
  reason: string;
}

export interface NodeRowJson {
  name: string;
  network: string;
  status: Status;
  label: string;
  reason: string;
  since: number | null;
  lastCheck: number | null;
  nextCheck: number | null;
  backingOff: boolean;
  height: number | null;
  lagBlocks: number | null;
  version: string | null;
  uptime24hText: string;
  recent?: Poll[];
}

export interface AlertJson {
  name: string;
  severity: string;
  state: 'pending' | 'firing';
  labels: Record<string, string>;
  summary?: string;
  /** ms since the epoch */
  since?: number;
}

export interface WatchRowJson {
  kind: string;
  name: string;
  network: string;
  address: string;
  status: Status;
  label: string;
  text: string;
  servedBy: string | null;
  lastRead: number | null;
  anchor: string;
}

export interface NetworkJson {
  network: string;
  answering: number;
  degraded: number;
  down: number;
  total: number;
  highestBlock: number | null;
}

export interface EventJson {
  at: number;
  kind: string;
  text: string;
}

export interface FleetJson {
  generatedAt: number;
  summary: Record<Status, number>;
  headline: string;
  total: number;
  offset: number;
  limit: number | null;
  alerts: AlertJson[] | null;
  networks: NetworkJson[];
  nodes: NodeRowJson[];
  events: EventJson[];
  watch: WatchRowJson[];
}

export interface ProbeJson {
  probe: string;
  outcome: 'ok' | 'failing' | 'unsupported' | 'pending';
  text: string;
  supported: boolean;
  lastRun: number | null;
  durationMs: number | null;
  lastSuccess: number | null;
  backingOff: boolean;
  nextCheck: number | null;
}

export interface NodeJson {
  generatedAt: number;
  node: NodeRowJson & {
    uptimeText: string;
    labels: Record<string, string>;
    namespace: string | null;
    peers: number | null;
    blockAgeSecs: number | null;
    probes: ProbeJson[];
  };
  events: EventJson[];
}

/** GET /api/v1/session: who the browser is signed in as, and the write token when a writer. */
export interface SessionJson {
  writer: boolean;
  user?: string | null;
  tokenHeader?: string;
  writeToken?: string;
}

/** An entry of Alertmanager's GET /api/v2/alerts, as the exporter serves it. */
export interface GettableAlert {
  fingerprint: string;
  labels: Record<string, string>;
  status: { silencedBy: string[] };
}

export interface Matcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual?: boolean;
}

/** An entry of GET /api/v2/silences. */
export interface GettableSilence {
  id: string;
  matchers: Matcher[];
  endsAt: string;
  createdBy: string;
  comment: string;
  status: { state: 'pending' | 'active' | 'expired' };
}
