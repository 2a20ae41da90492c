// Tokens and services without the network: parsing the node's answers (a bad one is an
// invalid_response with its reason; u128 amounts exact, total_supply and price_amount bare JSON
// numbers past 2^53 included), the views built from reads, and the five alerts through the
// built-in engine on an injected clock (fire once, resolve once; an unknown value, a restart with
// the services seen restored, decides nothing).
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../src/alerting/rules/definitions/index.js';
import { AlertEngine } from '../../src/alerting/rules/engine.js';
import type { EntityReadView } from '../../src/domain.js';
import { quoteExactNumbers } from '../../src/probe/jsonrpc.js';
import { ProbeError } from '../../src/probes/errors.js';
import { parseServices, parseTokenInfo } from '../../src/probes/watch/tokenParse.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import type { EntryInputs } from '../../src/watch/inputs.js';
import { providerState, providerView } from '../../src/watch/serviceViews.js';
import { accountTokens, tokenItemKeys, tokenWords } from '../../src/watch/tokenViews.js';
import type { WatchEntry, WatchedAccountView, WatchedEntryView, WatchedProviderView } from '../../src/watch/types.js';

const TOKEN = '7f'.repeat(32);
const OWNER = '0a'.repeat(32);
const SPENDER = '2b'.repeat(32);
const bytes = (hex: string) => Array.from(Buffer.from(hex, 'hex'));
const BIG = '340282366920938463463374607431768211455'; // u128::MAX
const parseRaw = (text: string, fields: string[]) => JSON.parse(quoteExactNumbers(text, fields)) as unknown;

const invalidReason = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProbeError);
    expect((e as ProbeError).reason).toBe('invalid_response');
    return (e as Error).message;
  }
  throw new Error('no error');
};

const tokenDef = (over: Record<string, unknown> = {}) => ({
  id: bytes(TOKEN),
  name: 'Claw Credit',
  symbol: 'CCR',
  decimals: 6,
  total_supply: 0,
  issuer: bytes(OWNER),
  ...over,
});

describe('parseTokenInfo', () => {
  it('reads total_supply, a JSON number beyond 2^53, exactly from the raw text', () => {
    const text = JSON.stringify(tokenDef()).replace('"total_supply":0', `"total_supply":${BIG}`);
    const info = parseTokenInfo(parseRaw(text, ['total_supply']), TOKEN);
    expect(info).toEqual({
      known: true,
      name: 'Claw Credit',
      symbol: 'CCR',
      decimals: 6,
      totalSupply: 2n ** 128n - 1n,
      issuer: OWNER,
    });
  });

  it('takes null as an unknown token, a state of its own', () => {
    expect(parseTokenInfo(null, TOKEN)).toEqual({ known: false });
  });

  it.each([
    [[], 'getTokenInfo: expected an object or null, got array'],
    [tokenDef({ id: bytes(OWNER) }), 'getTokenInfo answered for another token'],
    [tokenDef({ id: 'ab' }), 'getTokenInfo.id is not an array of 32 bytes: string of length 2'],
    [tokenDef({ decimals: 300 }), 'getTokenInfo.decimals is not a u8: 300'],
    [tokenDef({ decimals: -1 }), 'getTokenInfo.decimals is not a non-negative integer: -1'],
    [tokenDef({ symbol: 5 }), 'getTokenInfo.symbol is not a string: 5'],
    // A bare number past 2^53 that reached parse as a double: refused, never rounded.
    [tokenDef({ total_supply: 2 ** 60 }), `getTokenInfo.total_supply is not a u128 amount: ${2 ** 60}`],
    [tokenDef({ total_supply: BIG + '0' }), 'getTokenInfo.total_supply is not a u128 amount: string of length 40'],
  ])('refuses %j: %s', (answer, reason) => {
    expect(invalidReason(() => parseTokenInfo(answer, TOKEN))).toBe(reason);
  });
});

const service = (over: Record<string, unknown> = {}) => ({
  provider: bytes(OWNER),
  service_type: 'translation',
  description: 'x',
  price_token: bytes('00'.repeat(32)),
  price_amount: 0,
  endpoint: 'https://svc.example/',
  active: true,
  ...over,
});

describe('parseServices', () => {
  it('reads providers as hex and price_amount exactly', () => {
    const text = JSON.stringify([service()]).replace('"price_amount":0', `"price_amount":${BIG}`);
    expect(parseServices(parseRaw(text, ['price_amount']))).toEqual([
      {
        provider: OWNER,
        serviceType: 'translation',
        endpoint: 'https://svc.example/',
        active: true,
        priceAmount: 2n ** 128n - 1n,
        priceToken: '00'.repeat(32),
      },
    ]);
  });

  it.each([
    [{}, 'getServices: expected an array, got object'],
    [[service({ provider: 'aa' })], 'getServices[0].provider is not an array of 32 bytes: string of length 2'],
    [[service({ active: 'yes' })], 'getServices[0].active is not a boolean: string of length 3'],
    [[service({ endpoint: null })], 'getServices[0].endpoint is not a string: null'],
    [[service({ price_amount: -1 })], 'getServices[0].price_amount is not a u128 amount: -1'],
  ])('refuses %j: %s', (answer, reason) => {
    expect(invalidReason(() => parseServices(answer))).toBe(reason);
  });
});

const readOf = (data: unknown, failures = 0): EntityReadView => ({
  entity: { key: 'k', network: 'main', label: 'x', id: 'x', params: [] },
  ...(data !== undefined && { data, lastSuccessAt: 1_000 }),
  consecutiveFailures: failures,
  failures: { timeout: failures } as EntityReadView['failures'],
});

const accountEntry: WatchEntry = {
  kind: 'account',
  name: 'hot',
  address: OWNER,
  network: 'main',
  tokens: [{ tokenId: TOKEN, minBalance: 100 }],
  allowances: [{ spender: SPENDER, tokenId: TOKEN, max: 10 }],
};

function inputs(entry: WatchEntry, over: Partial<EntryInputs> = {}): EntryInputs {
  return {
    entry,
    network: undefined,
    epoch: undefined,
    decimals: 9,
    epochBlocks: 100,
    own: {},
    networkReads: {},
    intervalMs: 30_000,
    ...over,
  };
}

describe('account tokens view', () => {
  const info = { known: true, name: 'Claw Credit', symbol: 'CCR', decimals: 6, totalSupply: 1n, issuer: OWNER };

  it('names its item reads in config order and converts in the token decimals', () => {
    const keys = tokenItemKeys(accountEntry);
    expect(Object.values(keys).map((k) => k.length)).toEqual([1, 1, 1]);
    const v = accountTokens(
      inputs(accountEntry, {
        items: {
          watchTokenBalance: [readOf(50_500_000n)],
          watchTokenAllowance: [readOf(12_000_000n)],
          watchTokenInfo: [readOf(info)],
        },
      }),
    )!;
    expect(v.tokenBalances).toEqual([
      {
        tokenId: TOKEN,
        info: { known: true, symbol: 'CCR', decimals: 6, name: 'Claw Credit' },
        balanceTokens: 50.5,
        minBalance: 100,
      },
    ]);
    expect(v.tokenAllowances![0]).toMatchObject({ spender: SPENDER, allowanceTokens: 12, max: 10 });
    const words = tokenWords({
      ...accountEntry,
      ...v,
      consecutiveFailures: 0,
      failures: {},
      intervalMs: 1,
    } as WatchedAccountView);
    expect(words).toEqual({ status: 'down', text: `2b2b2b2b… may spend 12 CCR, above 10; 50.5 CCR below 100` });
  });

  it('knows no amount before the token info is read, and says so for an unknown token', () => {
    const before = accountTokens(
      inputs(accountEntry, { items: { watchTokenBalance: [readOf(5n)], watchTokenInfo: [readOf(undefined, 1)] } }),
    )!;
    expect(before.tokenBalances![0]!.balanceTokens).toBeUndefined();
    const unknown = accountTokens(
      inputs(accountEntry, { items: { watchTokenBalance: [readOf(0n)], watchTokenInfo: [readOf({ known: false })] } }),
    )!;
    expect(unknown.tokenBalances![0]).toMatchObject({ info: { known: false } });
    expect(
      tokenWords({
        ...accountEntry,
        ...unknown,
        consecutiveFailures: 0,
        failures: {},
        intervalMs: 1,
      } as WatchedAccountView)?.text,
    ).toContain('unknown on this network');
  });
});

const providerEntry: WatchEntry = {
  kind: 'provider',
  name: 'svc',
  address: OWNER,
  network: 'main',
  probeEndpoint: true,
};
const registry = (active: boolean, type = 'translation') => [
  { provider: OWNER, serviceType: type, endpoint: 'https://svc.example/', active, priceAmount: 1n, priceToken: '' },
  { provider: SPENDER, serviceType: 'other', endpoint: 'x', active: true, priceAmount: 1n, priceToken: '' },
];

describe('provider view', () => {
  it("picks the provider's services, and lists those seen before and gone as not registered", () => {
    const v = providerView(
      inputs(providerEntry, {
        networkReads: { watchServices: readOf(registry(true)) },
        local: {
          seen: ['storage', 'translation'],
          endpoints: { translation: { up: true, status: 200, durationSeconds: 0.01 } },
        },
      }),
    );
    expect(v.services).toEqual([
      { serviceType: 'storage', registered: false },
      {
        serviceType: 'translation',
        registered: true,
        active: true,
        endpoint: 'https://svc.example/',
        probe: { up: true, status: 200, durationSeconds: 0.01 },
      },
    ]);
    expect(providerState(v)).toEqual({
      status: 'down',
      text: 'storage: gone from the registry; translation: active, endpoint answered 200 in 10 ms',
    });
  });

  it('without the registry, knows only what was seen, and decides nothing about it', () => {
    const v = providerView(inputs(providerEntry, { local: { seen: ['translation'] } }));
    expect(v.services).toEqual([{ serviceType: 'translation' }]);
    expect(
      providerView(inputs(providerEntry, { networkReads: { watchServices: readOf(registry(true)) } })).services,
    ).toBeUndefined();
  });
});

// ---- the alerts, on an injected clock ----
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const read = { consecutiveFailures: 0, failures: {}, intervalMs: 30_000, lastSuccessSeconds: T0 / 1000 };
const quiet = { pollOverruns: new Map(), evidenceWriteErrors: 0 };
const snap = (entries: WatchedEntryView[]): FleetSnapshot => ({
  nodes: [],
  networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1 }],
  watch: { entries },
});
const acct = (balance: number | undefined, allowance: number | undefined): WatchedAccountView => ({
  ...accountEntry,
  kind: 'account',
  ...read,
  tokenBalances: [{ tokenId: TOKEN, minBalance: 100, ...(balance !== undefined && { balanceTokens: balance }) }],
  tokenAllowances: [
    { tokenId: TOKEN, spender: SPENDER, max: 10, ...(allowance !== undefined && { allowanceTokens: allowance }) },
  ],
});
const prov = (services: WatchedProviderView['services']): WatchedProviderView => ({
  ...providerEntry,
  kind: 'provider',
  ...read,
  services,
});
const up = { up: true, status: 200 };

const CASES: Array<[string, WatchedEntryView, WatchedEntryView, WatchedEntryView, Record<string, string>]> = [
  ['LedgerTokenBalanceLow', acct(50, 0), acct(500, 0), acct(undefined, undefined), { account: OWNER, token: TOKEN }],
  [
    'LedgerTokenAllowanceHigh',
    acct(500, 20),
    acct(500, 0),
    acct(undefined, undefined),
    { token: TOKEN, spender: SPENDER },
  ],
  [
    'LedgerServiceInactive',
    prov([{ serviceType: 'translation', registered: true, active: false }]),
    prov([{ serviceType: 'translation', registered: true, active: true, probe: up }]),
    prov([{ serviceType: 'translation' }]),
    { provider: OWNER, service_type: 'translation' },
  ],
  [
    'LedgerServiceMissing',
    prov([{ serviceType: 'translation', registered: false }]),
    prov([{ serviceType: 'translation', registered: true, active: true, probe: up }]),
    prov([{ serviceType: 'translation' }]),
    { provider: OWNER, service_type: 'translation' },
  ],
  [
    'LedgerServiceEndpointDown',
    prov([{ serviceType: 'translation', registered: true, active: true, probe: { up: false, problem: 'HTTP 503' } }]),
    prov([{ serviceType: 'translation', registered: true, active: true, probe: up }]),
    prov([{ serviceType: 'translation', registered: true, active: true }]),
    { provider: OWNER, service_type: 'translation' },
  ],
];

describe.each(CASES)('%s', (name, bad, good, unknown, labels) => {
  const def = findDefinition(name)!;
  const engineOf = () => new AlertEngine({ runbookBase: 'x', instance: 'e', definitions: [def] });
  const { forMs } = def.defaults;
  const evalAt = (e: AlertEngine, t: number, v: WatchedEntryView) =>
    e.evaluate({ snapshot: snap([v]), exporter: quiet }, t);

  it('fires once on the bad state and resolves once on the good one; unknown holds; a restart holds', () => {
    const engine = engineOf();
    const firingAt = T0 + forMs;
    for (let t = T0; t <= firingAt; t += 10_000) evalAt(engine, t, bad);
    const [inst] = engine.list();
    expect(inst).toMatchObject({ state: 'firing', labels: { alertname: name, name: bad.name, ...labels } });
    // Not known (a failed read, the registry not read): held, whatever the time.
    for (let t = firingAt; t <= firingAt + 3_600_000; t += 60_000) evalAt(engine, t, unknown);
    expect(engine.list().map((i) => [i.state, i.firingSince])).toEqual([['firing', inst!.firingSince]]);
    // A restart: the state restored, the first evaluations know nothing yet.
    const restarted = engineOf();
    restarted.restore(engine.list(), 5_000);
    evalAt(restarted, firingAt + 3_700_000, unknown);
    evalAt(restarted, firingAt + 3_710_000, bad);
    expect(restarted.list().map((i) => [i.state, i.firingSince])).toEqual([['firing', inst!.firingSince]]);
    const t1 = firingAt + 3_720_000 + def.defaults.keepFiringForMs;
    evalAt(restarted, firingAt + 3_720_000, good);
    evalAt(restarted, t1, good);
    expect(restarted.list().map((i) => i.state)).toEqual(['resolved']);
  });

  it('never fires on a state not known', () => {
    const engine = engineOf();
    for (let t = T0; t <= T0 + 3_600_000; t += 60_000) evalAt(engine, t, unknown);
    expect(engine.list()).toEqual([]);
  });
});
