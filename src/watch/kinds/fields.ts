// Field rules the watch kinds share: addresses as real nodes take them (64 lowercase hex, no 0x)
// and margins written as percentages ("10%"), as the contract writes them.
import { checked } from '../../config/sections/fields.js';

/** Why `s` is not an address real nodes take, or undefined. */
export function addressReason(s: string): string | undefined {
  if (/^0x/i.test(s)) return 'must not start with 0x: write the 64 hex characters alone';
  if (/^[0-9a-fA-F]{64}$/.test(s) && s !== s.toLowerCase()) return 'must be lowercase hex';
  if (!/^[0-9a-f]{64}$/.test(s)) return `must be 64 lowercase hex characters (got ${s.length} characters)`;
  return undefined;
}

export const PERCENT = /^(\d{1,2}(?:\.\d+)?)%$/;

/** Why `s` is not a margin such as 10% (above 0, below 100), or undefined. */
export function percentReason(s: string): string | undefined {
  const m = PERCENT.exec(s);
  if (!m || Number(m[1]) <= 0) return 'must be a percentage above 0% and below 100%, e.g. 10%';
  return undefined;
}

/** A 64-hex address field; `what` names it in messages (address, provider, tokenId, ...). */
export const hexAddress = (what: string, description: string) =>
  checked(addressReason, `${what} `, `${what} must be a string of 64 lowercase hex characters, no 0x prefix`).meta({
    description,
  });
