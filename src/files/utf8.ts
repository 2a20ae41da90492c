// Strict UTF-8 for what the exporter reads back. Decoding with 'utf8' turns a damaged byte into
// U+FFFD and reads on as if the text were whole: a label "n1" becomes "n\uFFFD", another name. Here a
// text is whole only when every byte sequence is well-formed (Unicode Table 3-7); otherwise each
// byte of a bad sequence becomes U+0000, a character no JSON text holds raw (in a string or out of
// one it is a syntax error), so a JSON reader sees damage exactly where the bytes were damaged.
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';

export const DAMAGE_MARK = '\u0000';

export interface DecodedText {
  text: string;
  /** Byte offset of the first sequence that is not UTF-8; undefined when the bytes are whole. */
  invalidAt?: number;
}

const cont = (b: number | undefined, lo = 0x80, hi = 0xbf) => b !== undefined && b >= lo && b <= hi;

/** Length of the well-formed sequence starting at `i`, 0 when there is none. */
function sequenceAt(buf: Uint8Array, i: number): number {
  const c = buf[i]!;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(buf[i + 1]) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const ok = cont(buf[i + 1], c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && cont(buf[i + 2]);
    return ok ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const ok =
      cont(buf[i + 1], c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && cont(buf[i + 2]) && cont(buf[i + 3]);
    return ok ? 4 : 0;
  }
  return 0;
}

/** Decodes `buf`; a byte of a sequence that is not UTF-8 comes out as DAMAGE_MARK, never U+FFFD. */
export function decodeUtf8(buf: Buffer): DecodedText {
  if (isUtf8(buf)) return { text: buf.toString('utf8') };
  const parts: string[] = [];
  let invalidAt: number | undefined;
  let start = 0;
  for (let i = 0; i < buf.length;) {
    const n = sequenceAt(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    invalidAt ??= i;
    parts.push(buf.toString('utf8', start, i), DAMAGE_MARK);
    start = ++i;
  }
  parts.push(buf.toString('utf8', start));
  return { text: parts.join(''), ...(invalidAt !== undefined ? { invalidAt } : {}) };
}

/**
 * A text file a person wrote (config, a secret): read as UTF-8 or refused with EILSEQ ("illegal
 * byte sequence"), so a damaged password or name is an error, never sent or shown with U+FFFD.
 */
export async function readUtf8File(path: string): Promise<string> {
  const buf = await readFile(path);
  const { text, invalidAt } = decodeUtf8(buf);
  if (invalidAt === undefined) return text;
  throw Object.assign(new Error(`${path}: not valid UTF-8 at byte ${invalidAt}`), { code: 'EILSEQ' });
}
