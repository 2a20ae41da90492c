// The board writes a node's derived status over its last one while no one was handed it and its
// kind stays: what it shows is what a status made anew shows, a status handed out is never written
// over, and a poll of a node whose outcome did not change makes no new status.
// Real FleetState, injected clock, deriveNodeStatus through the board's derive hook.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import { deriveNodeStatus, type Derived } from '../../src/status/derive.js';
import type { NodeStatus } from '../../src/status/types.js';
import { noBackoff, ok, proxy502 as failed } from '../support/probeResults.js';
import { target } from '../support/targets.js';

function result(probe: ProbeName, outcome: 'ok' | 'failed', at: number, height: number, age?: number): ProbeResult {
  if (outcome === 'failed') return failed(probe, at);
  if (probe === 'health')
    return ok({ probe, value: { status: 'ok', height, lastBlockAgeSecs: age, version: '0.5.8', peerCount: 4 } }, at);
  if (probe === 'blockNumber') return ok({ probe, value: height }, at);
  return ok({ probe: 'validators', value: [] }, at);
}

const NODES = [
  target('n0', { probes: ['blockNumber'], intervalMs: 5000, timeoutMs: 2000 }),
  target('n1', { probes: ['health', 'blockNumber', 'validators'], intervalMs: 5000, timeoutMs: 2000 }),
  target('n2', { probes: ['health', 'blockNumber'], intervalMs: 5000, timeoutMs: 2000, network: 'b' }),
];

/** A board that counts the derives that wrote over the last status. */
function countingBoard(now: () => number, fresh = false) {
  const counts = { over: 0, anew: 0 };
  const board = new StatusBoard({
    now,
    derive: (input, at, over?: Derived) => {
      const d = deriveNodeStatus(input, at, fresh ? undefined : over);
      if (d === over) counts.over++;
      else counts.anew++;
      return d;
    },
  });
  return { board, counts };
}

describe('status written over', () => {
  it('makes no new status for a poll whose outcome did not change, until the status is handed out', () => {
    let now = 1_000_000;
    const state = new FleetState([NODES[2]!], noBackoff);
    const { board, counts } = countingBoard(() => now);
    const poll = (outcome: 'ok' | 'failed', h: number) => {
      for (const probe of ['health', 'blockNumber'] as const) {
        const r = result(probe, outcome, now, h, 1);
        state.apply('n2', r);
        board.noteResult('n2', r);
      }
      board.update(state);
      now += 5000;
    };
    poll('ok', 100);
    expect(counts).toEqual({ over: 0, anew: 1 });
    for (let i = 1; i <= 10; i++) poll('ok', 100 + i);
    expect(counts).toEqual({ over: 10, anew: 1 });
    const shown = board.node('n2')!;
    const copy = structuredClone(shown);
    expect(shown).toMatchObject({ status: 'up', height: 110, lastCheckAt: now - 5000 });
    poll('ok', 111); // handed out: a new one
    poll('ok', 112); // then written over again
    expect(counts).toEqual({ over: 11, anew: 2 });
    expect(shown).toStrictEqual(copy);
    expect(board.node('n2')).not.toBe(shown);
    expect(board.node('n2')).toMatchObject({ status: 'up', height: 112, lastCheckAt: now - 5000 });
    poll('failed', 112); // another kind: a new one, and the change logged
    expect(board.node('n2')).toMatchObject({ status: 'down' });
    expect(board.recentEvents(1)[0]).toMatchObject({ kind: 'node_down', node: 'n2' });
    expect(board.history('n2')).toHaveLength(14);
  });

  const steps = fc.array(
    fc.oneof(
      fc.record({
        kind: fc.constant('result' as const),
        node: fc.nat(NODES.length - 1),
        probe: fc.nat(2),
        outcome: fc.constantFrom('ok' as const, 'ok' as const, 'ok' as const, 'failed' as const),
        behind: fc.constantFrom(0, 0, 0, 3, 25),
        age: fc.option(fc.nat(60)),
      }),
      fc.record({
        kind: fc.constant('advance' as const),
        ms: fc.constantFrom(1, 250, 1000, 5000, 31_000),
        blocks: fc.nat(3),
      }),
      fc.record({ kind: fc.constant('update' as const), look: fc.boolean() }),
    ),
    { minLength: 30, maxLength: 200 },
  );

  it('shows what statuses made anew show, and never writes over one handed out (property)', () => {
    let writtenOver = 0;
    fc.assert(
      fc.property(steps, (run) => {
        let now = 1_000_000;
        let chain = 5000;
        const sides = [false, true].map((fresh) => ({
          state: new FleetState(NODES, noBackoff),
          ...countingBoard(() => now, fresh),
        }));
        const [over, anew] = sides as [(typeof sides)[0], (typeof sides)[0]];
        const handedOut: { status: NodeStatus; copy: NodeStatus }[] = [];
        for (const s of run) {
          if (s.kind === 'advance') {
            now += s.ms;
            chain += s.blocks;
          } else if (s.kind === 'result') {
            const t = NODES[s.node]!;
            const probe = t.probes[s.probe % t.probes.length]!;
            const r = result(probe, s.outcome, now, chain - s.behind, s.age ?? undefined);
            for (const side of sides) {
              side.state.apply(t.name, r);
              side.board.noteResult(t.name, r);
            }
          } else {
            for (const side of sides) side.board.update(side.state);
            if (!s.look) continue;
            const shown = over.board.nodes();
            expect(shown).toStrictEqual(anew.board.nodes());
            expect(over.board.recentEvents(200)).toEqual(anew.board.recentEvents(200));
            for (const t of NODES) expect(over.board.history(t.name)).toEqual(anew.board.history(t.name));
            for (const status of shown) handedOut.push({ status, copy: structuredClone(status) });
          }
        }
        // What the board writes in place by design (the lag and block age it follows, with a node
        // behind its words) aside, a status handed out shows what it showed then.
        for (const { status, copy } of handedOut) {
          const { lagBlocks, blockAgeSecs, reasons, text, ...rest } = status;
          const { lagBlocks: l, blockAgeSecs: b, reasons: r, text: x, ...restCopy } = copy;
          void [lagBlocks, blockAgeSecs, reasons, text, l, b, r, x];
          expect(rest).toStrictEqual(restCopy);
        }
        expect(anew.counts.over).toBe(0);
        writtenOver += over.counts.over;
      }),
      { numRuns: 150 },
    );
    expect(writtenOver).toBeGreaterThan(100); // the runs wrote over statuses, not only made new ones
  });
});
