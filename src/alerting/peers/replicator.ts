// Silences between twin replicas: every change made here (SilenceService.onChange) is POSTed to
// each peer's /api/v2/silences as the full silence with its id and updatedAt and the header
// `X-Ledger-Replication: 1` (the peer keeps the newer copy); at start each peer's silences are
// read and taken the same way. A peer that is down gets the change when it is back: the latest
// version of each silence waits per peer (bounded by the number of silences), retried with a
// growing wait. Credentials are read from files at each request and never logged.
import { readFile } from 'node:fs/promises';
import type { HttpClient } from '../../http/client.js';
import type { Logger } from '../../logger.js';
import { basicCredential, type Secrets } from '../../redact.js';
import type { Silence, SilenceService } from '../silences/types.js';
import { REPLICATION_HEADER } from '../silences/types.js';
import type { PeerSettings } from './config.js';

const TIMEOUT_MS = 10_000;
const MAX_LIST_BYTES = 32 * 1024 * 1024;

export interface ReplicatorOptions {
  peers: readonly PeerSettings[];
  silences: SilenceService;
  client: HttpClient;
  secrets: Secrets;
  log: Logger;
  now(): number;
  /** Waits after a failed send or catch-up: doubled each time, from min to max. */
  backoff: { minMs: number; maxMs: number };
}

/** A silence as the API's POST takes a peer's copy of it. */
export function replicationBody(s: Silence): Record<string, unknown> {
  return {
    id: s.id,
    matchers: s.matchers,
    startsAt: new Date(s.startsAt).toISOString(),
    endsAt: new Date(s.endsAt).toISOString(),
    createdBy: s.createdBy,
    comment: s.comment,
    updatedAt: new Date(s.updatedAt).toISOString(),
    ...(s.ackOf !== undefined ? { ackOf: s.ackOf } : {}),
  };
}

/** A silence from GET /api/v2/silences (gettableSilence), or undefined when it is not one. */
export function fromGettable(v: unknown): Silence | undefined {
  const g = v as {
    id?: unknown;
    matchers?: unknown;
    startsAt?: unknown;
    endsAt?: unknown;
    updatedAt?: unknown;
    createdBy?: unknown;
    comment?: unknown;
    annotations?: { ackOf?: unknown };
  };
  const t = (x: unknown) => (typeof x === 'string' ? Date.parse(x) : NaN);
  const [startsAt, endsAt, updatedAt] = [t(g?.startsAt), t(g?.endsAt), t(g?.updatedAt)];
  if (typeof g?.id !== 'string' || !Array.isArray(g.matchers) || [startsAt, endsAt, updatedAt].some(Number.isNaN))
    return undefined;
  return {
    id: g.id,
    matchers: g.matchers as Silence['matchers'],
    startsAt,
    endsAt,
    updatedAt,
    createdBy: typeof g.createdBy === 'string' ? g.createdBy : '',
    comment: typeof g.comment === 'string' ? g.comment : '',
    ...(typeof g.annotations?.ackOf === 'string' ? { ackOf: g.annotations.ackOf } : {}),
  };
}

class PeerLink {
  /** The latest version of each silence not yet taken by this peer. */
  readonly waiting = new Map<string, Silence>();
  caughtUp = false;
  waitMs: number;
  failing = false;
  constructor(
    readonly peer: PeerSettings,
    minMs: number,
  ) {
    this.waitMs = minMs;
  }
}

export class PeerReplicator {
  private readonly links: PeerLink[];
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private readonly wakes = new Set<() => void>();
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly o: ReplicatorOptions) {
    this.links = o.peers.map((p) => new PeerLink(p, o.backoff.minMs));
  }

  start(): void {
    this.unsubscribe = this.o.silences.onChange((s) => {
      for (const l of this.links) l.waiting.set(s.id, s);
      this.wakeAll();
    });
    for (const l of this.links) this.loops.push(this.run(l));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wakeAll();
    await Promise.all(this.loops);
  }

  /** Changes not yet taken by some peer, and peers not caught up from (tests, /readyz). */
  pending(): { changes: number; notCaughtUp: number } {
    return {
      changes: this.links.reduce((n, l) => n + l.waiting.size, 0),
      notCaughtUp: this.links.filter((l) => !l.caughtUp).length,
    };
  }

  private wakeAll(): void {
    for (const w of [...this.wakes]) w();
  }

  private async run(l: PeerLink): Promise<void> {
    while (!this.stopped) {
      const ok = !l.caughtUp ? await this.catchUp(l) : l.waiting.size > 0 ? await this.sendOne(l) : undefined;
      if (this.stopped) return;
      if (ok === undefined) await this.sleep(undefined);
      else if (ok) this.succeeded(l);
      else {
        await this.sleep(l.waitMs);
        l.waitMs = Math.min(this.o.backoff.maxMs, l.waitMs * 2);
      }
    }
  }

  private succeeded(l: PeerLink): void {
    l.waitMs = this.o.backoff.minMs;
    if (l.failing) this.o.log.info({ peer: l.peer.url }, 'silence replication: peer reachable again');
    l.failing = false;
  }

  private failed(l: PeerLink, what: string): false {
    if (!l.failing)
      this.o.log.warn({ peer: l.peer.url }, `silence replication: ${what}; retrying until the peer answers`);
    l.failing = true;
    return false;
  }

  private async catchUp(l: PeerLink): Promise<boolean> {
    const out = await this.request(l, 'GET', '/api/v2/silences');
    if (!out.ok) return this.failed(l, `catching up from ${l.peer.url} failed: ${out.message}`);
    let list: unknown;
    try {
      list = JSON.parse(out.body) as unknown;
    } catch {
      return this.failed(l, `${l.peer.url} answered no JSON list of silences`);
    }
    let taken = 0;
    for (const item of Array.isArray(list) ? list : []) {
      const s = fromGettable(item);
      if (s && this.o.silences.applyRemote(s, this.o.now())) taken++;
    }
    l.caughtUp = true;
    this.o.log.info({ peer: l.peer.url, taken }, `silence replication: caught up from the peer (${taken} taken)`);
    return true;
  }

  private async sendOne(l: PeerLink): Promise<boolean> {
    const [id, s] = l.waiting.entries().next().value as [string, Silence];
    const out = await this.request(l, 'POST', '/api/v2/silences', JSON.stringify(replicationBody(s)));
    if (!out.ok) return this.failed(l, `sending silence ${id} to ${l.peer.url} failed: ${out.message}`);
    if (l.waiting.get(id) === s) l.waiting.delete(id); // a newer version that came meanwhile still waits
    return true;
  }

  private async request(
    l: PeerLink,
    method: 'GET' | 'POST',
    path: string,
    body?: string,
  ): Promise<{ ok: true; body: string } | { ok: false; message: string }> {
    let authorization: string | undefined;
    try {
      authorization = await this.auth(l.peer);
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
    const out = await this.o.client.send({
      method,
      url: `${l.peer.url}${path}`,
      headers: {
        accept: 'application/json',
        [REPLICATION_HEADER]: '1',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(authorization ? { authorization } : {}),
      },
      ...(body !== undefined ? { body } : {}),
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_LIST_BYTES,
      label: `${method} ${l.peer.url}${path}`,
    });
    if (out.ok) return { ok: true, body: out.response.body.toString('utf8') };
    return { ok: false, message: this.o.secrets.scrub(out.message) };
  }

  private async auth(p: PeerSettings): Promise<string | undefined> {
    if (!p.usernameFile || !p.passwordFile) return undefined;
    const read = async (file: string, what: string) => {
      try {
        return (await readFile(file, 'utf8')).trim();
      } catch (err) {
        throw new Error(`cannot read the peer's ${what} from ${file} (${(err as NodeJS.ErrnoException).code})`);
      }
    };
    const user = await read(p.usernameFile, 'user');
    const password = await read(p.passwordFile, 'password');
    this.o.secrets.add(password);
    const credential = basicCredential(user, password);
    this.o.secrets.add(credential);
    return `Basic ${credential}`;
  }

  private sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.wakes.delete(done);
        if (timer) clearTimeout(timer);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      this.wakes.add(done);
    });
  }
}
