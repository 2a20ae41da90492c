// Files a person writes (the config, secret files) are read as UTF-8 or refused: a damaged byte is
// an error naming where it is, never a label or a password quietly read with U+FFFD in it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheckConfig } from '../../src/config/index.js';
import { readUtf8File } from '../../src/files/utf8.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lfe-config-utf8-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = [
  'nodes:',
  '  - {name: n1, url: "http://127.0.0.1:9710", network: main, labels: {team: ops1}}',
  `evidence: {dir: ${JSON.stringify(path.join(dir, 'evidence'))}}`,
  '',
].join('\n');

describe('text files a person wrote', () => {
  it('check-config accepts the whole file (the control)', async () => {
    const file = path.join(dir, 'ok.yaml');
    writeFileSync(file, CONFIG);
    const out: string[] = [];
    expect(await runCheckConfig(file, (l) => void out.push(l))).toBe(0);
  });

  it('check-config refuses a config whose bytes are not UTF-8, naming the byte', async () => {
    const bytes = Buffer.from(CONFIG);
    const at = bytes.indexOf('ops1') + 3;
    bytes[at] = 0xb1;
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, bytes);
    const out: string[] = [];
    expect(await runCheckConfig(file, (l) => void out.push(l))).toBe(2);
    expect(out.join('\n')).toContain(`not valid UTF-8 at byte ${at}`);
  });

  it('a secret file that is not UTF-8 is refused with EILSEQ', async () => {
    const file = path.join(dir, 'key');
    writeFileSync(file, Buffer.from([0x73, 0x65, 0x63, 0xff]));
    await expect(readUtf8File(file)).rejects.toMatchObject({ code: 'EILSEQ' });
  });
});
