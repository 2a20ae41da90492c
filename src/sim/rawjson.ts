// JSON text with u128 values written as bare numbers, exactly (serde writes `pending_rewards`
// that way; a JS double would lose the low digits past 2^53).

/** A method result already serialised to JSON text; the envelope embeds it as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

const MARK = '\u0000u128:';

/** JSON.stringify, with every bigint written as a bare integer. */
export function stringifyExact(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v.toString()}` : v));
  // JSON.stringify writes the NUL of the mark as \u0000, which no other string here produces.
  return text.replace(/"\\u0000u128:(-?\d+)"/g, '$1');
}
