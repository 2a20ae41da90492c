// The five fields of a cron expression node-cron accepted, expanded to the values each allows, so
// "does a window start at this wall minute" is five lookups instead of a node-cron match (tens
// of microseconds each, ~1 s for a week of minutes). Standard syntax only: numbers, names, `*`,
// ranges, steps and lists; for anything else expandCron answers undefined and the caller keeps
// asking node-cron (test/alerting/cron-fields.unit.test.ts checks both agree on random expressions).

export interface CronFields {
  minute: ReadonlySet<number>;
  hour: ReadonlySet<number>;
  dom: ReadonlySet<number>;
  month: ReadonlySet<number>;
  /** 0-6, Sunday 0 (7 folded in). Both day fields must match, as node-cron has it (not Vixie's either-or). */
  dow: ReadonlySet<number>;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function value(text: string, names: string[] | undefined, nameBase: number): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const i = names?.indexOf(text.toLowerCase().slice(0, 3)) ?? -1;
  return i >= 0 && names![i] === text.toLowerCase() ? i + nameBase : undefined;
}

/** One field's values, or undefined for syntax this expander does not know. */
function expandField(field: string, min: number, max: number, names?: string[], nameBase = 0): Set<number> | undefined {
  const out = new Set<number>();
  for (const part of field.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const step = m[2] === undefined ? 1 : Number(m[2]);
    let lo: number | undefined;
    let hi: number | undefined;
    if (m[1] === '*') [lo, hi] = [min, max];
    else {
      const [a, b] = m[1]!.split('-');
      lo = value(a!, names, nameBase);
      hi = b === undefined ? (m[2] === undefined ? lo : max) : value(b, names, nameBase);
    }
    if (lo === undefined || hi === undefined || step < 1 || lo < min || hi > max || lo > hi) return undefined;
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export function expandCron(expr: string): CronFields | undefined {
  const f = expr.trim().split(/\s+/);
  if (f.length !== 5) return undefined;
  const minute = expandField(f[0]!, 0, 59);
  const hour = expandField(f[1]!, 0, 23);
  const dom = expandField(f[2]!, 1, 31);
  const month = expandField(f[3]!, 1, 12, MONTHS, 1);
  const dowRaw = expandField(f[4]!, 0, 7, DAYS, 0);
  if (!minute || !hour || !dom || !month || !dowRaw) return undefined;
  const dow = new Set([...dowRaw].map((d) => d % 7));
  return { minute, hour, dom, month, dow };
}

/** Does the wall time (fields read as UTC) match? */
export function matchesFields(c: CronFields, wallMs: number): boolean {
  const d = new Date(wallMs);
  if (!c.minute.has(d.getUTCMinutes()) || !c.hour.has(d.getUTCHours()) || !c.month.has(d.getUTCMonth() + 1))
    return false;
  return c.dom.has(d.getUTCDate()) && c.dow.has(d.getUTCDay());
}
