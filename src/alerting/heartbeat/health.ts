// Is the pipeline alive? Polling and evaluation each report progress; a stage that has not made
// progress within its bound is stalled. A blocked event loop is seen as a timer firing late.
// Pure: every answer is computed from the instants passed in.

export interface StageBound {
  /** e.g. "polling", "evaluation". */
  name: string;
  /** No progress for longer than this = stalled. Derive it from the stage's interval (see stallBound). */
  stallAfterMs: number;
}

export interface HealthVerdict {
  healthy: boolean;
  /** Why not, safe to log: "evaluation: no progress for 47s", "event loop blocked for 3.2s". */
  reasons: string[];
}

/** A stage doing one round per `intervalMs` that may take `budgetMs`: stalled after missing ~3 rounds. */
export function stallBound(intervalMs: number, budgetMs = 0): number {
  return 3 * intervalMs + budgetMs;
}

export class PipelineHealth {
  private readonly last = new Map<string, number>();
  private readonly bounds: readonly StageBound[];
  private blocked: { at: number; forMs: number } | undefined;

  /** Stages that have not reported yet count from `startMs`, so start-up gets one bound of grace. */
  constructor(
    bounds: readonly StageBound[],
    startMs: number,
    private readonly blockedMemoryMs: number,
  ) {
    this.bounds = bounds;
    for (const b of bounds) this.last.set(b.name, startMs);
  }

  progress(stage: string, nowMs: number): void {
    if (this.last.has(stage)) this.last.set(stage, Math.max(nowMs, this.last.get(stage) ?? 0));
  }

  /** A loop-lag sampler saw its timer fire `lagMs` late at `nowMs`. */
  loopBlocked(lagMs: number, nowMs: number): void {
    this.blocked = { at: nowMs, forMs: lagMs };
  }

  check(nowMs: number): HealthVerdict {
    const reasons: string[] = [];
    for (const b of this.bounds) {
      const idle = nowMs - (this.last.get(b.name) ?? nowMs);
      if (idle > b.stallAfterMs) reasons.push(`${b.name}: no progress for ${seconds(idle)}`);
    }
    // A block is remembered for a while: the pipeline may look fine right after the loop frees up.
    if (this.blocked && nowMs - this.blocked.at < this.blockedMemoryMs)
      reasons.push(`event loop blocked for ${seconds(this.blocked.forMs)}`);
    return { healthy: reasons.length === 0, reasons };
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}
