// JSON-RPC calls with params: the body carries them, built once, and u128 numbers of the named
// fields are read exactly from the raw text.
import { describe, expect, it } from 'vitest';
import { endpointFor } from '../../src/probe/http.js';
import { prepareRpc, quoteExactNumbers, rpcTail } from '../../src/probe/jsonrpc.js';

describe('JSON-RPC params', () => {
  it('puts the params in the body after the id, and no params as []', () => {
    const ep = endpointFor({ url: 'http://127.0.0.1:9/', headers: {} });
    const rpc = prepareRpc(ep, 'claw_getBalance', { timeoutMs: 1000, maxBytes: 1000 }, ['ab'.repeat(32)]);
    expect(JSON.parse(`${rpc.head}7${rpc.tail}`)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'claw_getBalance',
      params: ['ab'.repeat(32)],
    });
    expect(JSON.parse(`${rpc.head}1${rpcTail('claw_blockNumber')}`).params).toEqual([]);
    // The same method without params shares one tail text.
    expect(rpcTail('claw_blockNumber')).toBe(rpcTail('claw_blockNumber'));
  });

  it('reads a u128 JSON number of a named field exactly, and leaves other fields and string contents alone', () => {
    const text =
      '{"pending_rewards": ' +
      '340282366920938463463374607431768211455,"name":"x\\"pending_rewards\\":5","other":123456789012345678901}';
    const parsed = JSON.parse(quoteExactNumbers(text, ['pending_rewards'])) as Record<string, unknown>;
    expect(parsed.pending_rewards).toBe('340282366920938463463374607431768211455');
    expect(BigInt(parsed.pending_rewards as string)).toBe(2n ** 128n - 1n);
    expect(parsed.name).toBe('x"pending_rewards":5');
    expect(typeof parsed.other).toBe('number');
    expect(JSON.parse(quoteExactNumbers('{"pending_rewards":0}', ['pending_rewards']))).toEqual({
      pending_rewards: '0',
    });
  });
});
