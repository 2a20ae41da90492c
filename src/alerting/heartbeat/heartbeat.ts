// Dead-man's switch: ping an external URL every interval while polling and evaluation make
// progress and the event loop runs freely. When either is stuck the pings stop, so a
// healthchecks-style service pages; they resume by themselves once the pipeline recovers.
import type { Registry } from 'prom-client';
import { Gauge } from '../../deps/promClient.js';
import { SYSTEM_CLOCK, toWall, type Clock } from '../../clock/clock.js';
import type { PipelineHealth } from './health.js';

/** The subset of the project's HTTP client request the heartbeat uses. */
export interface HeartbeatRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
  redirect: 'same-origin';
  label: string;
}
/** The project's one HTTP client (`HttpClient.send`) fits; it never throws and scrubs messages. */
export type HeartbeatSend = (req: HeartbeatRequest) => Promise<{ ok: true } | { ok: false; message: string }>;

export interface HeartbeatLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface HeartbeatOptions {
  /** A secret (the URL often holds the check's key): never logged; messages name it "heartbeat". */
  url: string;
  method: 'GET' | 'POST';
  intervalMs: number;
  timeoutMs: number;
  send: HeartbeatSend;
  health: PipelineHealth;
  log: HeartbeatLog;
  /** Health, lag and the beat run on its monotonic side; the ping's `at` and the metric on its wall side. */
  clock?: Clock;
  /** How often the loop-lag sampler runs, and the lateness that counts as a blocked loop. */
  lagSampleMs?: number;
  lagThresholdMs?: number;
}

export type BeatResult = 'sent' | 'skipped' | 'failed';

export class Heartbeat {
  private readonly now: () => number;
  readonly clock: Clock;
  private lastSuccess: number | undefined;
  private pausedFor: string | undefined;
  private failing = false;
  private beatTimer: NodeJS.Timeout | undefined;
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: HeartbeatOptions) {
    const clock = (this.clock = opts.clock ?? SYSTEM_CLOCK);
    this.now = () => clock.mono();
  }

  /** Monotonic ms of the last ping the receiver accepted. */
  lastSuccessMs(): number | undefined {
    return this.lastSuccess;
  }

  start(): void {
    if (this.beatTimer) return;
    const sampleMs = this.opts.lagSampleMs ?? 500;
    const threshold = this.opts.lagThresholdMs ?? Math.max(2_000, Math.min(this.opts.intervalMs, 10_000));
    let expected = this.now() + sampleMs;
    this.lagTimer = setInterval(() => {
      const t = this.now();
      const lag = t - expected;
      if (lag > threshold) this.opts.health.loopBlocked(lag, t);
      expected = t + sampleMs;
    }, sampleMs);
    this.lagTimer.unref();
    let due = this.now() + this.opts.intervalMs;
    const loop = () => {
      // The beat timer itself firing late is a blocked loop too (it may run before the sampler).
      const t = this.now();
      if (t - due > threshold) this.opts.health.loopBlocked(t - due, t);
      void this.beat().finally(() => {
        if (!this.beatTimer) return;
        due = this.now() + this.opts.intervalMs;
        this.beatTimer = setTimeout(loop, this.opts.intervalMs).unref();
      });
    };
    this.beatTimer = setTimeout(loop, this.opts.intervalMs).unref();
  }

  stop(): void {
    clearTimeout(this.beatTimer);
    clearInterval(this.lagTimer);
    this.beatTimer = undefined;
    this.lagTimer = undefined;
  }

  /** One round: ping when healthy. Exposed for tests and for a first beat at start-up. */
  async beat(): Promise<BeatResult> {
    const t = this.now();
    const verdict = this.opts.health.check(t);
    if (!verdict.healthy) {
      const why = verdict.reasons.join('; ');
      if (this.pausedFor === undefined) this.opts.log.warn({ reasons: verdict.reasons }, `heartbeat paused: ${why}`);
      this.pausedFor = why;
      return 'skipped';
    }
    if (this.pausedFor !== undefined) this.opts.log.info({}, 'heartbeat resumed: polling and evaluation make progress');
    this.pausedFor = undefined;
    const out = await this.opts.send(this.request(t));
    if (out.ok) {
      this.lastSuccess = this.now();
      if (this.failing) this.opts.log.info({}, 'heartbeat ping succeeds again');
      this.failing = false;
      return 'sent';
    }
    // Logged once per failing streak; the metric's age tells how long.
    if (!this.failing) this.opts.log.warn({ error: out.message }, 'heartbeat ping failed');
    this.failing = true;
    return 'failed';
  }

  private request(t: number): HeartbeatRequest {
    const base = {
      url: this.opts.url,
      timeoutMs: this.opts.timeoutMs,
      maxBytes: 65_536,
      redirect: 'same-origin' as const,
      label: `${this.opts.method} heartbeat`,
    };
    if (this.opts.method === 'GET') return { ...base, method: 'GET' };
    const body = JSON.stringify({
      service: 'ledger-fleet-exporter',
      status: 'ok',
      at: new Date(toWall(this.clock, t)).toISOString(),
    });
    return { ...base, method: 'POST', headers: { 'content-type': 'application/json' }, body };
  }
}

/** ledger_alert_heartbeat_last_success_timestamp_seconds, read at scrape time. */
export function heartbeatCollectors(registry: Registry, heartbeat: () => Heartbeat | undefined): void {
  new Gauge({
    name: 'ledger_alert_heartbeat_last_success_timestamp_seconds',
    help:
      'Time of the last heartbeat ping the heartbeat URL accepted, seconds since the epoch; 0: none yet, or no ' +
      'heartbeat configured.',
    registers: [registry],
    collect() {
      this.reset();
      const hb = heartbeat();
      const last = hb?.lastSuccessMs();
      if (hb && last !== undefined) this.set(toWall(hb.clock, last) / 1000);
    },
  });
}
