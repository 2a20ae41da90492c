import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FamilyRegistry, registerTextFamily } from '../../src/exposition/textFamily.js';

const OM = Registry.OPENMETRICS_CONTENT_TYPE;
const TEXT = Registry.PROMETHEUS_CONTENT_TYPE;
const nodes: Array<[string, number]> = [
  ['plain', 0],
  ['we"ird\\node\nx', 3],
  ['ünïcode', 2.5],
];
const COUNTER_HELP = 'Counts \\ things\nacross lines';

/** The same families through prom-client's own Counter and Gauge: the bytes to match. */
function promClientRegistry(contentType: string): Registry {
  const registers = [new (Registry as unknown as new (c: string) => Registry)(contentType)];
  new Gauge({ name: 'before_gauge', help: 'A prom-client metric before.', registers }).set(1);
  new Counter({
    name: 'per_node_total',
    help: COUNTER_HELP,
    labelNames: ['node'],
    registers,
    collect() {
      this.reset();
      for (const [node, v] of nodes) this.inc({ node }, v);
    },
  });
  new Gauge({
    name: 'per_node_reason',
    help: 'Gauge by node and reason.',
    labelNames: ['node', 'reason'],
    registers,
    collect() {
      this.reset();
      for (const [node, v] of nodes) if (v > 0) this.set({ node, reason: 'r"1' }, v);
    },
  });
  new Gauge({ name: 'empty_gauge', help: 'No samples.', labelNames: ['node'], registers });
  return registers[0]!;
}

function textRegistry(registry: Registry): Registry {
  registry.registerMetric(new Gauge({ name: 'before_gauge', help: 'A prom-client metric before.', registers: [] }));
  (registry.getSingleMetric('before_gauge') as Gauge).set(1);
  registerTextFamily(registry, {
    name: 'per_node_total',
    help: COUNTER_HELP,
    type: 'counter',
    labelNames: ['node'],
    collect: (emit) => nodes.forEach(([node, v]) => emit([['node', node]], v)),
  });
  registerTextFamily(registry, {
    name: 'per_node_reason',
    help: 'Gauge by node and reason.',
    type: 'gauge',
    labelNames: ['node', 'reason'],
    collect: (emit) =>
      nodes.forEach(
        ([node, v]) =>
          v > 0 &&
          emit(
            [
              ['node', node],
              ['reason', 'r"1'],
            ],
            v,
          ),
      ),
  });
  registerTextFamily(registry, {
    name: 'empty_gauge',
    help: 'No samples.',
    type: 'gauge',
    labelNames: [],
    collect: () => undefined,
  });
  return registry;
}

describe('TextFamily', () => {
  for (const [format, contentType] of [
    ['text', TEXT],
    ['openmetrics', OM],
  ] as const) {
    it(`writes what prom-client writes (${format}), twice in a row`, async () => {
      const expected = await promClientRegistry(contentType).metrics();
      const own = textRegistry(new FamilyRegistry(contentType));
      expect(await own.metrics()).toBe(expected);
      expect(await own.metrics()).toBe(expected);
      expect(expected).toContain(
        format === 'text'
          ? 'per_node_total{node="we\\"ird\\\\node\\nx"} 3'
          : 'per_node_total{node="we\\"ird\\\\node\\nx"} 3\n',
      );
    });

    it(`is formatted by prom-client in a plain Registry (${format})`, async () => {
      const expected = await promClientRegistry(contentType).metrics();
      const plain = textRegistry(new (Registry as unknown as new (c: string) => Registry)(contentType));
      expect(await plain.metrics()).toBe(expected);
    });
  }

  it('answers getSingleMetricAsString like any metric', async () => {
    const own = textRegistry(new FamilyRegistry(TEXT));
    expect(await own.getSingleMetricAsString('per_node_reason')).toBe(
      '# HELP per_node_reason Gauge by node and reason.\n# TYPE per_node_reason gauge\n' +
        'per_node_reason{node="we\\"ird\\\\node\\nx",reason="r\\"1"} 3\n' +
        'per_node_reason{node="ünïcode",reason="r\\"1"} 2.5',
    );
  });

  it('writes the samples of every scrape when they changed since the last (the kept text only if not)', async () => {
    // Each step: the node list a scrape sees. Same samples again, a value moved, a node added,
    // one removed, a label value changed, back to an earlier list, none at all.
    const steps: Array<Array<[string, number]>> = [
      [
        ['a', 1],
        ['b', 2],
      ],
      [
        ['a', 1],
        ['b', 2],
      ],
      [
        ['a', 1],
        ['b', 3],
      ],
      [
        ['a', 1],
        ['b', 3],
        ['c', 0],
      ],
      [
        ['a', 1],
        ['b', 3],
      ],
      [
        ['a', 1],
        ['x"y', 3],
      ],
      [
        ['a', 1],
        ['b', 2],
      ],
      [],
      [['a', Number.NaN]],
      [['a', Number.NaN]],
    ];
    for (const contentType of [TEXT, OM]) {
      let current: Array<[string, number]> = [];
      const own = new FamilyRegistry(contentType);
      registerTextFamily(own, {
        name: 'moving_total',
        help: 'Moves.',
        type: 'counter',
        labelNames: ['node', 'kind'],
        collect: (emit) =>
          current.forEach(([node, v]) =>
            emit(
              [
                ['node', node],
                ['kind', node === 'a' ? 'k' : 'j'],
              ],
              v,
            ),
          ),
      });
      for (const step of steps) {
        current = step;
        const registers = [new (Registry as unknown as new (c: string) => Registry)(contentType)];
        new Counter({
          name: 'moving_total',
          help: 'Moves.',
          labelNames: ['node', 'kind'],
          registers,
          collect() {
            this.reset();
            for (const [node, v] of step) this.inc({ node, kind: node === 'a' ? 'k' : 'j' }, v);
          },
        });
        expect(await own.metrics()).toBe(await registers[0]!.metrics());
      }
    }
  });
});
