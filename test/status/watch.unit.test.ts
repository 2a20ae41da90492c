// The status page's watched validators, miners and accounts: the state of each in words, the
// section on the fleet page with links from the node rows that served them, and /api/v1/watch.
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusBoard } from '../../src/status/board.js';
import { statusRoute, type StatusRouteDeps } from '../../src/status/routes.js';
import { accountState, minerState, ordinal, validatorState } from '../../src/status/watchWords.js';
import type {
  WatchSnapshot,
  WatchedAccountView,
  WatchedMinerView,
  WatchedValidatorView,
} from '../../src/watch/types.js';
import { target } from '../support/targets.js';

const NOW = 1_800_000_000_000;
const read = {
  consecutiveFailures: 0,
  failures: {},
  intervalMs: 30_000,
  lastSuccessSeconds: NOW / 1000 - 10,
  servedBy: 'val-eu-1',
};
const v = (over: Partial<WatchedValidatorView> = {}): WatchedValidatorView => ({
  kind: 'validator',
  name: 'val-main',
  address: 'ab'.repeat(32),
  network: 'mainnet',
  ...read,
  registered: true,
  active: true,
  rank: 3,
  setSize: 21,
  rewarded: true,
  rewardsHeight: 81_234,
  jailed: false,
  commissionRatio: 0.05,
  ...over,
});
const m = (over: Partial<WatchedMinerView> = {}): WatchedMinerView => ({
  kind: 'miner',
  name: 'rig-01',
  address: 'cd'.repeat(32),
  network: 'mainnet',
  ...read,
  registered: true,
  active: true,
  consecutiveMisses: 0,
  rewardMultiplier: 1,
  attendanceEpochs: 12,
  ...over,
});
const a = (over: Partial<WatchedAccountView> = {}): WatchedAccountView => ({
  kind: 'account',
  name: 'hot-wallet',
  address: 'ef'.repeat(32),
  network: 'mainnet',
  ...read,
  minBalance: 25,
  balanceTokens: 100,
  ...over,
});

describe('watched entries in words', () => {
  it('validators: seat, payment, offline, out of the set, jailed, commission, not read', () => {
    expect(validatorState(v())).toEqual({ status: 'up', text: 'in the active set, 3rd of 21, paid in block 81,234' });
    expect(validatorState(v({ rewarded: false })).text).toBe(
      'OFFLINE: in the active set, 3rd of 21, but not paid in block 81,234; unpaid until the next epoch',
    );
    expect(validatorState(v({ rewarded: false })).status).toBe('down');
    expect(validatorState(v({ active: false, rank: undefined })).text).toBe(
      'NOT in the active set: produces no blocks, earns nothing',
    );
    expect(validatorState(v({ jailed: true })).text).toMatch(/^JAILED/);
    expect(validatorState(v({ commissionBps: 500, commissionRatio: 0.09 }))).toEqual({
      status: 'degraded',
      text: 'in the active set, 3rd of 21, paid in block 81,234; commission 9%, expected 5%',
    });
    expect(validatorState(v({ seatMarginBelow: 0.1, seatMarginRatio: 0.04 })).text).toContain(
      'only 4% above the lowest seat (warns below 10%)',
    );
    expect(validatorState(v({ registered: false, active: false })).text).toBe(
      'no stake: not a validator on this network',
    );
    expect(validatorState({ ...v(), active: undefined, lastSuccessSeconds: undefined })).toEqual({
      status: 'unknown',
      text: 'not read yet',
    });
    expect(validatorState({ ...v(), active: undefined, consecutiveFailures: 3, failures: { timeout: 3 } })).toEqual({
      status: 'down',
      text: 'cannot be read: 3 reads failed in a row (timeout)',
    });
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
    ]);
  });

  it('miners: missed check-ins, inactive, reduced reward', () => {
    expect(minerState(m())).toEqual({
      status: 'up',
      text: 'checking in every epoch, paid x1 (12 of the last 12 epochs)',
    });
    expect(minerState(m({ consecutiveMisses: 2, rewardMultiplier: 0.8, attendanceEpochs: 10 }))).toEqual({
      status: 'degraded',
      text: 'missed 2 check-ins, inactive after 6 (4 more); paid x0.8 (10 of the last 12 epochs)',
    });
    expect(minerState(m({ active: false, consecutiveMisses: 7, rewardMultiplier: 0 })).text).toBe(
      'INACTIVE: missed 7 check-ins in a row; earns nothing until it checks in again',
    );
    expect(minerState(m({ rewardMultiplier: 0.5, attendanceEpochs: 7 })).text).toBe(
      'checking in again; paid x0.5 (7 of the last 12 epochs)',
    );
    expect(minerState(m({ registered: false, active: undefined })).text).toBe('not registered on this network');
  });

  it('accounts: balance against the minimum, unbonding', () => {
    expect(accountState(a({ balanceTokens: 10 }))).toEqual({ status: 'degraded', text: 'balance 10.0 below 25' });
    expect(accountState(a())).toEqual({ status: 'up', text: 'balance 100.0, minimum 25' });
    expect(
      accountState(
        a({
          minBalance: undefined,
          unbondingClaimableTokens: 1500,
          unbondingPendingTokens: 20,
          nextReleaseBlocks: 1234,
        }),
      ).text,
    ).toBe('balance 100.0; 1,500.0 unbonded, waiting to be claimed; 20.0 unbonding, next release in 1,234 blocks');
  });
});

function deps(watch: WatchSnapshot | undefined): StatusRouteDeps {
  const names = ['val-eu-1', 'val-us-1'];
  const state = new FleetState(
    names.map((n) => target(n, { probes: ['blockNumber'], network: 'mainnet', intervalMs: 5000, timeoutMs: 2000 })),
    { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
  );
  const board = new StatusBoard({ now: () => NOW });
  const ok: ProbeResult = {
    kind: 'ok',
    probe: 'blockNumber',
    startedAt: NOW - 100,
    durationMs: 5,
    data: { probe: 'blockNumber', value: 100 },
    namespace: 'claw',
  };
  for (const n of names) {
    state.apply(n, ok);
    board.noteResult(n, ok);
  }
  board.update(state);
  return { source: { board, now: () => NOW, refreshMs: 1000, watch: () => watch }, version: 'test', ready: () => true };
}

async function get(d: StatusRouteDeps, path: string) {
  const url = new URL(path, 'http://x');
  return (await statusRoute(d, url.pathname, url.searchParams))!;
}

describe('the fleet page and /api/v1/watch', () => {
  const watch: WatchSnapshot = {
    entries: [v(), m({ consecutiveMisses: 2, servedBy: 'val-us-1' }), a({ balanceTokens: 10 })],
  };

  it('lists each entry with its state, linked from the rows of the nodes that served it', async () => {
    const page = await get(deps(watch), '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2 id="watch-h">Validators, miners and accounts</h2>');
    expect(page.body).toContain('<tr id="watch-val-main" class="row-up">');
    expect(page.body).toContain('in the active set, 3rd of 21, paid in block 81,234');
    expect(page.body).toContain('missed 2 check-ins, inactive after 6');
    expect(page.body).toContain('balance 10.0 below 25');
    expect(page.body).toContain('<a href="nodes/val-us-1">val-us-1</a>');
    const euRow = /<tr class="row-\w+" data-node="val-eu-1">.*?<\/tr>/.exec(page.body)![0];
    expect(euRow).toContain(
      'serves <a class="tag" href="#watch-val-main">val-main</a> <a class="tag" ' +
        'href="#watch-hot-wallet">hot-wallet</a>',
    );
    const usRow = /<tr class="row-\w+" data-node="val-us-1">.*?<\/tr>/.exec(page.body)![0];
    expect(usRow).toContain('href="#watch-rig-01"');
    // The page script refreshes the section from the fleet JSON.
    const nodes = JSON.parse((await get(deps(watch), '/api/v1/nodes')).body) as {
      watch: Array<{ name: string; text: string; anchor: string }>;
    };
    expect(nodes.watch.map((w) => [w.name, w.anchor])).toEqual([
      ['val-main', 'watch-val-main'],
      ['rig-01', 'watch-rig-01'],
      ['hot-wallet', 'watch-hot-wallet'],
    ]);
  });

  it('answers /api/v1/watch with each value read and the state in words; no section without a list', async () => {
    const r = await get(deps(watch), '/api/v1/watch');
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    const body = JSON.parse(r.body) as {
      configured: boolean;
      validators: Array<Record<string, unknown>>;
      accounts: Array<Record<string, unknown>>;
    };
    expect(body.configured).toBe(true);
    expect(body.validators[0]).toMatchObject({
      name: 'val-main',
      address: 'ab'.repeat(32),
      rank: 3,
      status: 'up',
      text: 'in the active set, 3rd of 21, paid in block 81,234',
    });
    expect(body.accounts[0]).toMatchObject({
      balanceTokens: 10,
      minBalance: 25,
      status: 'degraded',
      text: 'balance 10.0 below 25',
    });
    const none = await get(deps(undefined), '/');
    expect(none.body).not.toContain('watch-h');
    expect(JSON.parse((await get(deps(undefined), '/api/v1/watch')).body)).toEqual({
      configured: false,
      validators: [],
      miners: [],
      accounts: [],
      services: [],
    });
  });
});
