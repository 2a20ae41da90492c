// A simulated network's service registry as claw-node 0.5.8 serves it: getServices [type?] answers
// every registered service (filtered by type when given) in the serde form of ServiceEntry
// (provider and price_token as 32 numbers, price_amount a bare u128 JSON number, the endpoint
// text the provider registered). Seeded with one service per agent; the control API registers,
// deactivates, removes and re-points them.
import { z } from 'zod';
import type { SimChain } from './chain.js';
import { def } from './method-defs.js';
import { RawJson, stringifyExact } from './rawjson.js';
import { hash32 } from './rng.js';
import { bytesOf } from './ledger-tokens.js';

export interface ServiceRecord {
  provider: string;
  serviceType: string;
  description: string;
  /** All zeros: the native token. */
  priceToken: string;
  priceAmount: bigint;
  endpoint: string;
  active: boolean;
}

export interface ServiceChange {
  active?: boolean;
  endpoint?: string;
  description?: string;
  /** Out of the registry. */
  remove?: boolean;
}

const NATIVE = '0'.repeat(64);

export class ServiceRegistry {
  /** By provider and type, in registration order. */
  private readonly services = new Map<string, ServiceRecord>();

  constructor(chain: SimChain) {
    for (const a of chain.agents)
      this.services.set(`${a.address}:${a.serviceType}`, {
        provider: a.address,
        serviceType: a.serviceType,
        description: `${a.name} ${a.serviceType}`,
        priceToken: NATIVE,
        // Past 2^53 for some: a u128 the reader must take exactly.
        priceAmount: BigInt((hash32(a.address) % 1_000) + 1) * 10n ** 15n + 7n,
        endpoint: `https://${a.name}.services.invalid/${a.serviceType}`,
        active: hash32(a.address) % 5 !== 0,
      });
  }

  list(type?: string | null): ServiceRecord[] {
    return [...this.services.values()].filter((s) => type == null || s.serviceType === type);
  }

  /** Changes (or registers, when new and not a removal) the provider's service of `type`. */
  change(provider: string, type: string, c: ServiceChange): ServiceRecord | undefined {
    const key = `${provider}:${type}`;
    if (c.remove) {
      this.services.delete(key);
      return undefined;
    }
    const s = this.services.get(key) ?? {
      provider,
      serviceType: type,
      description: `${type} by ${provider.slice(0, 8)}`,
      priceToken: NATIVE,
      priceAmount: 10n ** 18n + 1n,
      endpoint: 'https://service.invalid/',
      active: true,
    };
    if (c.active !== undefined) s.active = c.active;
    if (c.endpoint !== undefined) s.endpoint = c.endpoint;
    if (c.description !== undefined) s.description = c.description;
    this.services.set(key, s);
    return s;
  }
}

// The registry belongs to its chain (nodes of one network share it); held beside it, not a cache.
const registries = new WeakMap<SimChain, ServiceRegistry>();

export function serviceRegistry(chain: SimChain): ServiceRegistry {
  let r = registries.get(chain);
  if (!r) registries.set(chain, (r = new ServiceRegistry(chain)));
  return r;
}

export const serviceFields = (s: ServiceRecord): Record<string, unknown> => ({
  provider: bytesOf(s.provider),
  service_type: s.serviceType,
  description: s.description,
  price_token: bytesOf(s.priceToken),
  price_amount: s.priceAmount,
  endpoint: s.endpoint,
  active: s.active,
});

/** Methods of every build. */
export const LEDGER_SERVICE_METHODS = {
  getServices: def(
    z.tuple([z.string().nullable().optional()]).rest(z.unknown()),
    (ctx, [type]) => new RawJson(stringifyExact(serviceRegistry(ctx.chain).list(type).map(serviceFields))),
  ),
};
