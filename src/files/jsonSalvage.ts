// Reads what is still whole in a damaged JSON file: one cut short (a kill during a copy that was
// not atomic, a full disk, a hand edit) or with a bad spot. jsonc-parser (VS Code's JSON parser)
// reads on past errors and says where each value begins and ends. A value is taken only when its
// own closing bracket is in the text (a literal: when a separator follows it) and no error lies
// between its key and its end; it is then its own slice of the text read by JSON.parse, so nothing
// is completed or guessed. (A repairer completes the value at the cut: a timestamp cut to fewer
// digits would read as another time, an id cut short as another alert.)
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
}

/** A path as one string (map keys). */
export const pathKey = (path: JsonPath): string => JSON.stringify(path);

interface Open {
  path: JSONPath;
  role: Exclude<PathRole, undefined>;
  /** Where the value's key starts (an object member), else the value. */
  from: number;
  start: number;
}

/** Every whole value whose path `role` names a value; sections reported as seen. */
export function salvageJson(text: string, role: (path: JsonPath) => PathRole): SalvagedJson {
  const out: SalvagedJson = { values: [], broken: [], sections: new Map(), errors: 0 };
  const errorAt: number[] = [];
  const stack: Array<Open | undefined> = [];
  let keyAt = 0;
  const errorWithin = (from: number, to: number) => {
    for (let i = errorAt.length - 1; i >= 0 && errorAt[i]! >= from; i--) if (errorAt[i]! <= to) return true;
    return false;
  };
  // Inside a value to take, nothing is asked about (its slice is read whole at its end).
  let withinValue = 0;
  const begin = (offset: number, path: () => JSONPath) => {
    if (withinValue > 0) return void (withinValue++, stack.push(undefined));
    const p = path();
    const r = role(p);
    const from = typeof p[p.length - 1] === 'string' ? keyAt : offset;
    stack.push(r ? { path: p, role: r, from, start: offset } : undefined);
    if (r === 'value') withinValue = 1;
  };
  const end = (closer: string) => (offset: number, length: number) => {
    const open = stack.pop();
    if (withinValue > 0) withinValue--;
    if (!open) return;
    const closed = length === 1 && text[offset] === closer;
    const whole = closed && !errorWithin(open.from, offset);
    if (open.role === 'section') out.sections.set(pathKey(open.path), { closed, whole });
    else take(out, open.path, whole ? text.slice(open.start, offset + 1) : undefined);
  };
  visit(
    text,
    {
      onObjectBegin: (offset, _l, _sl, _sc, path) => begin(offset, path),
      onArrayBegin: (offset, _l, _sl, _sc, path) => begin(offset, path),
      onObjectEnd: end('}'),
      onArrayEnd: end(']'),
      onObjectProperty: (_p, offset) => void (keyAt = offset),
      onLiteralValue: (_v, offset, length, _sl, _sc, path) => {
        if (withinValue > 0) return;
        const p = path();
        if (role(p) !== 'value') return;
        const from = typeof p[p.length - 1] === 'string' ? keyAt : offset;
        // A literal at the cut may itself be cut (a number's digits): whole only when a separator follows.
        const followed = /^\s*[,}\]]/.test(text.slice(offset + length, offset + length + 64));
        take(out, p, followed && !errorWithin(from, offset + length) ? text.slice(offset, offset + length) : undefined);
      },
      onError: (_e, offset) => {
        out.errors++;
        errorAt.push(offset);
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return out;
}

function take(out: SalvagedJson, path: JsonPath, slice: string | undefined): void {
  if (slice === undefined) return void out.broken.push(path);
  try {
    out.values.push({ path, value: JSON.parse(slice) as unknown });
  } catch {
    out.broken.push(path);
  }
}
