// The control API's token and service routes (amounts are u128 decimal strings of base units):
//   GET  /networks/<n>/tokens                                  -> {"tokens":[{tokenId, name, symbol, decimals}]}
//   POST /networks/<n>/tokens/<tokenId>/balances/<addr>        {"balance":"…"}
//   POST /networks/<n>/tokens/<tokenId>/allowances/<owner>/<spender> {"allowance":"…"}
//   GET  /networks/<n>/services                                -> {"services":[{provider, serviceType, …}]}
//   POST /networks/<n>/services/<provider>/<type>              {"active":false} {"endpoint":"http://…"} {"remove":true}
// Answers undefined for any other path (control-chain.ts serves those).
import { z } from 'zod';
import type { ChainControl } from './ledger-control.js';
import { serviceRegistry, type ServiceRecord } from './ledger-services.js';
import { tokenBook } from './ledger-tokens.js';
import { errorReply as error, parseBody as parse } from './controlBody.js';
import { jsonReply, type Reply } from './reply.js';

export const TOKEN_SERVICE_ENDPOINTS = [
  { method: 'GET', path: '/networks/<n>/tokens', what: 'the tokens: id, symbol, decimals' },
  {
    method: 'POST',
    path: '/networks/<n>/tokens/<tokenId>/balances/<addr>',
    body: '{"balance":"1000"}',
    what: 'set a token balance',
  },
  {
    method: 'POST',
    path: '/networks/<n>/tokens/<tokenId>/allowances/<owner>/<spender>',
    body: '{"allowance":"1000"}',
    what: 'set an allowance',
  },
  { method: 'GET', path: '/networks/<n>/services', what: 'the service registry' },
  {
    method: 'POST',
    path: '/networks/<n>/services/<provider>/<type>',
    body: '{"active":false}',
    what: 'register, (de)activate, re-point ({"endpoint":"…"}) or remove ({"remove":true}) a service',
  },
] as const;

const u128 = z
  .string()
  .regex(/^[0-9]{1,39}$/)
  .transform((s) => BigInt(s));
const ADDR = /^[0-9a-f]{64}$/;
const bodies = {
  balance: z.object({ balance: u128 }).strict(),
  allowance: z.object({ allowance: u128 }).strict(),
  service: z
    .object({
      active: z.boolean(),
      endpoint: z.string().max(2048),
      description: z.string().max(256),
      remove: z.boolean(),
    })
    .partial()
    .strict(),
};

const serviceJson = (s: ServiceRecord) => ({ ...s, priceAmount: s.priceAmount.toString() });

function tokens(c: ChainControl, method: string, rest: string[], body: string): Reply {
  const chain = c.simChain;
  if (rest.length === 0) {
    if (method !== 'GET') return error(405, 'method not allowed');
    return jsonReply({
      tokens: chain.tokens.map((t) => ({ tokenId: t.tokenId, name: t.name, symbol: t.symbol, decimals: t.decimals })),
    });
  }
  const [tokenId, what, owner, spender] = rest;
  const addresses = what === 'balances' ? [tokenId, owner] : [tokenId, owner, spender];
  if ((what !== 'balances' || rest.length !== 3) && (what !== 'allowances' || rest.length !== 4))
    return error(404, 'not found');
  if (!addresses.every((a) => ADDR.test(a ?? ''))) return error(400, 'ids must be 64 lowercase hex characters');
  if (method !== 'POST') return error(405, 'method not allowed');
  c.ledger(); // to the tip first, as every control action
  const book = tokenBook(chain);
  try {
    if (what === 'balances') {
      const b = parse(bodies.balance, body);
      if (typeof b === 'string') return error(400, b);
      book.setBalance(owner!, tokenId!, b.balance);
      return jsonReply({ tokenId, owner, balance: book.balance(owner!, tokenId!).toString() });
    }
    const b = parse(bodies.allowance, body);
    if (typeof b === 'string') return error(400, b);
    book.setAllowance(owner!, spender!, tokenId!, b.allowance);
    return jsonReply({ tokenId, owner, spender, allowance: book.allowance(owner!, spender!, tokenId!).toString() });
  } catch (e) {
    return error(400, (e as Error).message);
  }
}

function services(c: ChainControl, method: string, rest: string[], body: string): Reply {
  const registry = serviceRegistry(c.simChain);
  if (rest.length === 0) {
    if (method !== 'GET') return error(405, 'method not allowed');
    return jsonReply({ services: registry.list().map(serviceJson) });
  }
  const [provider, type] = rest;
  if (rest.length !== 2 || !type) return error(404, 'not found');
  if (!ADDR.test(provider!)) return error(400, 'the provider must be 64 lowercase hex characters');
  if (method !== 'POST') return error(405, 'method not allowed');
  const b = parse(bodies.service, body);
  if (typeof b === 'string') return error(400, b);
  const s = registry.change(provider!, type, b);
  return jsonReply(s ? serviceJson(s) : { provider, serviceType: type, removed: true });
}

/** parts: the path after /networks, split on "/"; undefined when not a token or service route. */
export function tokenServiceRoute(
  networks: ReadonlyMap<string, ChainControl>,
  method: string,
  parts: string[],
  body: string,
): Reply | undefined {
  if (parts.length < 2 || (parts[1] !== 'tokens' && parts[1] !== 'services')) return undefined;
  const c = networks.get(parts[0]!);
  if (!c) return error(404, `unknown network: ${parts[0]!}`);
  return parts[1] === 'tokens' ? tokens(c, method, parts.slice(2), body) : services(c, method, parts.slice(2), body);
}
