// Reads one node's /metrics answers, poll after poll: an answer with its last answer's shape has
// only its values read; any other is parsed in full (parse.ts), which also finds every error.
import type { UpstreamBudget } from './budget.js';
import { parseDetailed } from './parse.js';
import { matchShape, shapeOf, type UpstreamShape } from './shape.js';
import type { MetricFamily, Sample } from './types.js';

/** Longest run of answers parsed without making a shape, for a node whose shapes never serve twice. */
const MAX_BACKOFF = 64;

/** A node's answer as read: its families (a full parse) or its shape with values, or both. */
export interface UpstreamRead {
  /** Set after a full parse. */
  families?: MetricFamily[];
  /** The samples of `families` in line order: value i of the shape is samples[i]'s. */
  samples?: Sample[];
  /** Set when the answer was read whole within its budget and has a shape. */
  shape?: UpstreamShape;
  values?: number[];
  /** Samples the per-node budget left out. */
  droppedSamples: number;
}

export class UpstreamReader {
  private last: UpstreamShape | undefined;
  /** Answers the last shape served. */
  private hits = 0;
  /**
   * A node whose label values change every poll (a hash, a timestamp) never sends a shape twice:
   * making shapes for it costs more than it saves, so after each unused shape it makes none for
   * twice as many answers as the time before (up to MAX_BACKOFF).
   */
  private backoff = 0;
  private skip = 0;

  constructor(private readonly budget: Partial<UpstreamBudget>) {}

  /** Throws ExpositionError as parseExposition does. */
  read(text: string): UpstreamRead {
    const last = this.last;
    const values = last && matchShape(last, text);
    if (values) {
      this.hits++;
      return { shape: last, values, droppedSamples: 0 };
    }
    const parsed = parseDetailed(text, { budget: this.budget });
    const { families, samples, droppedSamples } = parsed;
    if (last) this.shapeEnded();
    if (this.skip > 0) this.skip--;
    else this.last = parsed.tails ? shapeOf(text, parsed.tails, this.budget) : undefined;
    this.hits = 0;
    if (!this.last) return { families, droppedSamples };
    return { families, samples, shape: this.last, values: samples.map((s) => s.value), droppedSamples };
  }

  private shapeEnded(): void {
    this.last = undefined;
    this.backoff = this.hits > 0 ? 0 : Math.min(MAX_BACKOFF, 2 * this.backoff + 1);
    this.skip = this.backoff;
  }
}
