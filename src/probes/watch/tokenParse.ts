// Pure parsers of the token and service answers (claw-node 0.5.x serde forms,
// reference-node-facts.md "Delegations, agents, tokens and services"): ids as 32 numbers,
// total_supply and price_amount as u128 JSON numbers read exactly (the probes quote them from the
// raw text; a bare JS number past 2^53 is refused, never rounded), null token info a value.
import { count, describe, invalid, isObject, parseAmount } from '../parse.js';
import { bytes32Hex } from './parse.js';

function text(o: Record<string, unknown>, key: string, field: string, max: number): string {
  const v = o[key];
  if (typeof v !== 'string') throw invalid(`${field} is not a string: ${describe(v)}`);
  if (v.length > max) throw invalid(`${field} is longer than ${max} characters`);
  return v;
}

export type TokenInfo =
  | { known: false }
  | { known: true; name: string; symbol: string; decimals: number; totalSupply: bigint; issuer: string };

/** getTokenInfo [tokenId]: null for an unknown token; the id checked against the one asked. */
export function parseTokenInfo(result: unknown, tokenId: string): TokenInfo {
  if (result === null) return { known: false };
  if (!isObject(result)) throw invalid(`getTokenInfo: expected an object or null, got ${describe(result)}`);
  if (bytes32Hex(result.id, 'getTokenInfo.id') !== tokenId) throw invalid('getTokenInfo answered for another token');
  const decimals = count(result.decimals, 'getTokenInfo.decimals');
  if (decimals > 255) throw invalid(`getTokenInfo.decimals is not a u8: ${decimals}`);
  return {
    known: true,
    name: text(result, 'name', 'getTokenInfo.name', 256),
    symbol: text(result, 'symbol', 'getTokenInfo.symbol', 64),
    decimals,
    totalSupply: parseAmount(result.total_supply, 'getTokenInfo.total_supply'),
    issuer: bytes32Hex(result.issuer, 'getTokenInfo.issuer'),
  };
}

export interface ServiceEntry {
  provider: string;
  serviceType: string;
  endpoint: string;
  active: boolean;
  priceAmount: bigint;
  /** The native token: all zeros. */
  priceToken: string;
}

/** More entries than any registry should hold: a larger answer is refused rather than held. */
export const MAX_SERVICES = 100_000;

/** getServices [type?]: every registered service. */
export function parseServices(result: unknown): ServiceEntry[] {
  if (!Array.isArray(result)) throw invalid(`getServices: expected an array, got ${describe(result)}`);
  if (result.length > MAX_SERVICES) throw invalid(`getServices: more than ${MAX_SERVICES} services`);
  return result.map((r: unknown, i): ServiceEntry => {
    const at = `getServices[${i}]`;
    if (!isObject(r)) throw invalid(`${at}: expected an object, got ${describe(r)}`);
    if (typeof r.active !== 'boolean') throw invalid(`${at}.active is not a boolean: ${describe(r.active)}`);
    return {
      provider: bytes32Hex(r.provider, `${at}.provider`),
      serviceType: text(r, 'service_type', `${at}.service_type`, 256),
      endpoint: text(r, 'endpoint', `${at}.endpoint`, 2048),
      active: r.active,
      priceAmount: parseAmount(r.price_amount, `${at}.price_amount`),
      priceToken: bytes32Hex(r.price_token, `${at}.price_token`),
    };
  });
}
