// Reads what is still whole in a damaged JSON file: one cut short (a kill during a copy that was
// not atomic, a full disk, a hand edit) or with a bad spot. jsonc-parser (VS Code's JSON parser)
// reads on past errors and says where each value begins and ends. A value is taken only when its
// own closing bracket is in the text (a literal: when a separator follows it) and no error lies
// between its key and its end; it is then its own slice of the text read by JSON.parse, so nothing
// is completed or guessed. (A repairer completes the value at the cut: a timestamp cut to fewer
// digits would read as another time, an id cut short as another alert.) The read is bounded: nesting
// deeper than any file of ours, or a read running past its time, stops it as a cut there (the
// parser recurses per level, so a text of 6,000 nested arrays would overflow the stack).
import { visit, type JSONPath } from 'jsonc-parser';

export type JsonPath = ReadonlyArray<string | number>;

/** What a path is to the caller: an entry to recover, a section to report on, or neither. */
export type PathRole = 'value' | 'section' | undefined;

export interface SalvagedJson {
  /** Whole values at the paths asked for, in the order of the text. */
  values: Array<{ path: JsonPath; value: unknown }>;
  /** Values at the paths asked for that were there but not whole (cut, or an error inside). */
  broken: JsonPath[];
  /** Each section seen, by pathKey(): `whole` when closed with no error inside it. */
  sections: Map<string, { closed: boolean; whole: boolean }>;
  /** Syntax errors found (0 for a text JSON.parse reads). */
  errors: number;
  /** Where and why the read stopped before the end of the text (a bound reached): read as a cut there. */
  stoppedAt?: { offset: number; why: string };
}

export interface SalvageBounds {
  /** Nesting deeper than this stops the read (default 64). */
  maxDepth?: number;
  /** A read running longer stops (default 5 s); `clock` measures it (default performance.now). */
  maxMs?: number;
  clock?: () => number;
}

/** A path as one string (map keys). */
export const pathKey = (path: JsonPath): string => JSON.stringify(path);

/** Thrown from a visitor callback to end the read (the parser has no other way out). */
class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly why: string,
  ) {
    super(why);
  }
}

const CLOCK_EVERY = 4096;

interface Open {
  path: JSONPath;
  role: Exclude<PathRole, undefined>;
  /** Where the value's key starts (an object member), else the value. */
  from: number;
  start: number;
}

/** Every whole value whose path `role` names a value; sections reported as seen. */
export function salvageJson(
  text: string,
  role: (path: JsonPath) => PathRole,
  bounds: SalvageBounds = {},
): SalvagedJson {
  return new SalvageRead(text, role, bounds).run();
}

class SalvageRead {
  readonly out: SalvagedJson = { values: [], broken: [], sections: new Map(), errors: 0 };
  private readonly errorAt: number[] = [];
  private readonly stack: Array<Open | undefined> = [];
  private keyAt = 0;
  /** Inside a value to take, nothing is asked about (its slice is read whole at its end). */
  private withinValue = 0;
  private calls = 0;
  private readonly maxDepth: number;
  private readonly maxMs: number;
  private readonly clock: () => number;
  private readonly deadline: number;

  constructor(
    private readonly text: string,
    private readonly role: (path: JsonPath) => PathRole,
    bounds: SalvageBounds,
  ) {
    this.maxDepth = bounds.maxDepth ?? 64;
    this.maxMs = bounds.maxMs ?? 5_000;
    this.clock = bounds.clock ?? (() => performance.now());
    this.deadline = this.clock() + this.maxMs;
  }

  run(): SalvagedJson {
    try {
      visit(
        this.text,
        {
          onObjectBegin: (offset, _l, _sl, _sc, path) => this.begin(offset, path),
          onArrayBegin: (offset, _l, _sl, _sc, path) => this.begin(offset, path),
          onObjectEnd: (offset, length) => this.end('}', offset, length),
          onArrayEnd: (offset, length) => this.end(']', offset, length),
          onObjectProperty: (_p, offset) => void (this.keyAt = offset),
          onLiteralValue: (_v, offset, length, _sl, _sc, path) => this.literal(offset, length, path),
          onError: (_e, offset) => {
            this.out.errors++;
            this.errorAt.push(offset);
          },
        },
        { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
      );
    } catch (err) {
      if (!(err instanceof Stop)) throw err;
      this.out.stoppedAt = { offset: err.offset, why: err.why };
      // What was open at the stop is cut there: its sections not closed, its values not whole.
      for (const open of this.stack) {
        if (open?.role === 'section') this.out.sections.set(pathKey(open.path), { closed: false, whole: false });
        else if (open) this.out.broken.push(open.path);
      }
    }
    return this.out;
  }

  private check(offset: number, depth: number): void {
    if (depth > this.maxDepth) throw new Stop(offset, `nested deeper than ${this.maxDepth}`);
    if (++this.calls % CLOCK_EVERY === 0 && this.clock() > this.deadline)
      throw new Stop(offset, `read for longer than ${this.maxMs} ms`);
  }

  private errorWithin(from: number, to: number): boolean {
    const e = this.errorAt;
    for (let i = e.length - 1; i >= 0 && e[i]! >= from; i--) if (e[i]! <= to) return true;
    return false;
  }

  private begin(offset: number, path: () => JSONPath): void {
    this.check(offset, this.stack.length + 1);
    if (this.withinValue > 0) return void (this.withinValue++, this.stack.push(undefined));
    const p = path();
    const r = this.role(p);
    const from = typeof p[p.length - 1] === 'string' ? this.keyAt : offset;
    this.stack.push(r ? { path: p, role: r, from, start: offset } : undefined);
    if (r === 'value') this.withinValue = 1;
  }

  private end(closer: string, offset: number, length: number): void {
    const open = this.stack.pop();
    if (this.withinValue > 0) this.withinValue--;
    if (!open) return;
    const closed = length === 1 && this.text[offset] === closer;
    const whole = closed && !this.errorWithin(open.from, offset);
    if (open.role === 'section') this.out.sections.set(pathKey(open.path), { closed, whole });
    else take(this.out, open.path, whole ? this.text.slice(open.start, offset + 1) : undefined);
  }

  private literal(offset: number, length: number, path: () => JSONPath): void {
    this.check(offset, 0);
    if (this.withinValue > 0) return;
    const p = path();
    if (this.role(p) !== 'value') return;
    const from = typeof p[p.length - 1] === 'string' ? this.keyAt : offset;
    // A literal at the cut may itself be cut (a number's digits): whole only when a separator follows.
    const after = this.text.slice(offset + length, offset + length + 64);
    const whole = /^\s*[,}\]]/.test(after) && !this.errorWithin(from, offset + length);
    take(this.out, p, whole ? this.text.slice(offset, offset + length) : undefined);
  }
}

function take(out: SalvagedJson, path: JsonPath, slice: string | undefined): void {
  if (slice === undefined) return void out.broken.push(path);
  try {
    out.values.push({ path, value: JSON.parse(slice) as unknown });
  } catch {
    out.broken.push(path);
  }
}
