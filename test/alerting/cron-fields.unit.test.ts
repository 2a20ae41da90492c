// The expanded cron fields answer exactly as node-cron's matcher (the oracle) for random
// expressions and random wall minutes, and syntax the expander does not know is left to node-cron.
import fc from 'fast-check';
import { createTask, validate } from 'node-cron';
import { describe, expect, it } from 'vitest';
import { expandCron, matchesFields } from '../../src/alerting/maintenance/cronFields.js';

const part = (min: number, max: number, names: string[] = []) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.integer({ min: 1, max: 12 }).map((s) => `*/${s}`),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc
      .tuple(fc.integer({ min, max }), fc.integer({ min, max }), fc.integer({ min: 1, max: 5 }))
      .map(([a, b, s]) => `${Math.min(a, b)}-${Math.max(a, b)}/${s}`),
    ...(names.length > 0 ? [fc.constantFrom(...names)] : []),
  );
const field = (min: number, max: number, names?: string[]) =>
  fc.array(part(min, max, names), { minLength: 1, maxLength: 3 }).map((p) => p.join(','));
const expression = fc
  .tuple(
    field(0, 59),
    field(0, 23),
    field(1, 31),
    field(1, 12, ['jan', 'jun', 'dec']),
    field(0, 7, ['sun', 'mon', 'fri']),
  )
  .map((f) => f.join(' '))
  // node-cron refuses impossible dates ("31 4"), and so does the config: only valid ones compare.
  .filter((expr) => validate(expr));

describe('expanded cron fields', () => {
  it('match exactly the wall minutes node-cron matches', () => {
    fc.assert(
      fc.property(
        expression,
        fc.array(fc.integer({ min: 0, max: 5 * 365 * 1440 }), { minLength: 20, maxLength: 20 }),
        (expr, minutes) => {
          const fields = expandCron(expr);
          expect(fields).toBeDefined();
          const task = createTask(expr, () => undefined, { timezone: 'Etc/UTC' });
          try {
            for (const m of minutes) {
              const wall = Date.UTC(2024, 0, 1) + m * 60_000;
              expect(matchesFields(fields!, wall), `${expr} at ${new Date(wall).toISOString()}`).toBe(
                task.match(new Date(wall)),
              );
            }
          } finally {
            void task.destroy();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves syntax it does not know to node-cron', () => {
    expect(expandCron('0 2 L * *')).toBeUndefined();
    expect(expandCron('0 0 2 * * *')).toBeUndefined();
  });
});
