// Overlapping config reloads run one at a time, in the order asked. The first reload reads a FIFO
// linked at the config path, so its read is held open until the test writes to it: "in progress"
// is a state the test waits for, not a race. Meanwhile the path is replaced by the newest file
// and a second reload is asked for; it must wait, then read and apply the newest file last.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  linkSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { configReloader, type Reloadable } from '../../src/daemon/reload.js';
import { configYaml } from '../support/lifecycleFiles.js';
import { waitFor } from '../support/processes.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-reload-serialized-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const yaml = (node: string) => configYaml({ nodes: [{ name: node, url: 'http://127.0.0.1:1' }] });

/** Opens the FIFO for writing once a reader holds it open (ENXIO until then), without blocking. */
function writerOnceRead(fifo: string): number | undefined {
  try {
    return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
    throw err;
  }
}

describe('overlapping config reloads', () => {
  it.skipIf(process.platform !== 'linux')(
    'wait for the one in progress, and the newest file is applied last',
    async () => {
      const file = join(dir, 'exporter.yaml');
      const fifo = join(dir, 'held.fifo');
      let current: ExporterConfig = parseConfig(yaml('start'), { file });
      const applied: string[] = [];
      const daemon: Reloadable = {
        config: () => current,
        applyConfig(next) {
          applied.push(next.nodes.map((n) => n.name).join(','));
          current = next;
        },
        noteReloadFailure: (problems) => applied.push(`failure: ${problems?.join('; ')}`),
      };
      const logs: Array<{ msg?: string; why?: string }> = [];
      const sink = new Writable({
        write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk)) as { msg?: string }), done()),
      });
      const reload = configReloader(file, daemon, createLogger({ level: 'debug', destination: sink }), {
        apply: (c) => c,
        sharded: () => false,
        summary: () => ({}),
      });

      execFileSync('mkfifo', [fifo]);
      linkSync(fifo, file);
      const first = reload('SIGHUP');
      const fd = await waitFor('the first reload to open the config file', () => writerOnceRead(fifo), {
        timeoutMs: 10_000,
        intervalMs: 5,
      });
      let writing = true;
      try {
        // The newest file takes the path while the first reload still reads the old one.
        writeFileSync(join(dir, 'next.yaml'), yaml('newest'));
        renameSync(join(dir, 'next.yaml'), file);
        const second = reload('SIGHUP');
        // Either the second reload queued behind the first, or (unserialized) it already applied.
        await waitFor(
          'the second reload to wait or to apply',
          () => logs.some((l) => l.msg === 'configuration reload waits for the one in progress') || applied.length > 0,
          {
            timeoutMs: 10_000,
            intervalMs: 5,
          },
        );
        writeSync(fd, yaml('first'));
        closeSync(fd);
        writing = false;
        await Promise.all([first, second]);
      } finally {
        // Closing the writer ends the first reload's read, should the test fail before that.
        if (writing) closeSync(fd);
      }
      expect(applied).toEqual(['first', 'newest']);
      expect(current.nodes.map((n) => n.name)).toEqual(['newest']);
      expect(logs.filter((l) => l.msg === 'configuration applied').map((l) => l.why)).toEqual(['SIGHUP', 'SIGHUP']);
    },
  );
});
