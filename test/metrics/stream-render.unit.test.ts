// A streamed /metrics body (written into pooled chunks, sent or compressed as each fills) says
// byte for byte what a body rendered whole says, in both formats, plain and gzip, whatever the
// chunk size; blocks stay whole when results change lines while a render waits for a chunk; and
// the pool keeps at most its size of chunks however many renders and slow readers there are.
import { describe, expect, it } from 'vitest';
import { ChunkPool, MAX_KEPT_CHUNKS, SPARE_CHUNKS } from '../../src/metrics/chunkPool.js';
import { ChunkWriter } from '../../src/metrics/chunkWriter.js';
import { fleet, readStream, rng, scrapeText } from '../support/streamedFleet.js';

/** Each family's block (from its HELP line to the next family's), by family name. */
function blocks(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(/(?=^# HELP )/m)) out.set(/^# HELP (\S+)/.exec(part)?.[1] ?? '', part);
  return out;
}

describe('streamed /metrics bodies', () => {
  it('equal a whole render, plain and gunzipped gzip, both formats, over random fleets and chunk sizes', async () => {
    let streamedBodies = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const pick = rng(seed);
      const f = fleet(20 + pick(60), seed % 2 ? ['mainnet', 'testnet'] : ['mainnet']);
      const live = f.view(512 + pick(16 * 1024));
      for (let round = 0; round < 6; round++) {
        f.answer([live], round, pick, 1 + pick(4));
        const whole = f.view();
        f.answer([whole], round, () => 1, 0); // nothing answers: only builds its lines from the state
        for (const format of ['text', 'openmetrics'] as const) {
          // Conflicts are counted as of the last scrape: the fresh view renders once first.
          await whole.render(format);
          const want = (await whole.render(format)).body.toString('utf8');
          for (const gzip of [false, true, true]) {
            const got = await scrapeText(live, format, gzip);
            expect(got.text).toBe(want);
            if (got.streamed) streamedBodies++;
          }
        }
      }
    }
    expect(streamedBodies).toBeGreaterThan(100);
  });

  it('keeps the compression of unchanged blocks across scrapes when blocks span chunks', async () => {
    const f = fleet(200);
    const view = f.view(4096);
    f.answer([view], 0, rng(3));
    const first = await scrapeText(view, 'text', true);
    const second = await scrapeText(view, 'text', true);
    const r = await view.render('text', { gzip: true, stream: true });
    await readStream(r);
    const third = await scrapeText(view, 'text', true);
    expect(first.streamed && third.streamed).toBe(true);
    expect(second.text).toBe(first.text);
    expect(third.text).toBe(first.text);
    expect((await view.render('text')).body.toString('utf8')).toBe(first.text);
  });

  it('writes every block whole from one state when results change lines while the render waits', async () => {
    const pick = rng(7);
    const f = fleet(120);
    const view = f.view(1024);
    f.answer([view], 0, pick);
    const before = (await view.render('text')).body.toString('utf8');
    // Every node answers anew a few loop turns into the streamed render (it waits for compression).
    const changes = (async () => {
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      f.answer([view], 1, () => 1);
    })();
    const got = await scrapeText(view, 'text', true);
    await changes;
    const after = (await view.render('text')).body.toString('utf8');
    expect(after).not.toBe(before);
    const [b, a] = [blocks(before), blocks(after)];
    for (const [name, block] of blocks(got.text)) expect([b.get(name), a.get(name)]).toContain(block);
  });

  it('keeps no more chunks than its size, with renders overlapping and readers holding theirs', async () => {
    const pick = rng(11);
    const f = fleet(150);
    const view = f.view(2048);
    f.answer([view], 0, pick);
    const want = (await view.render('text')).body.toString('utf8');
    // Slow readers: each run of bytes is given back only after a few loop turns.
    const holds: Array<Promise<void>> = [];
    const slow = () => {
      const hold = (async () => {
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      })();
      holds.push(hold);
      return hold;
    };
    const scrapes = Array.from({ length: 8 }, (_, i) => scrapeText(view, 'text', i % 2 === 0, slow));
    for (const s of await Promise.all(scrapes)) expect(s.text).toBe(want);
    expect(view.chunks.size).toBeLessThanOrEqual(view.chunks.keep);
    expect(view.chunks.keep).toBeLessThanOrEqual(MAX_KEPT_CHUNKS);
    expect(view.chunks.freshTaken).toBeGreaterThan(0); // the readers held chunks: the renders took fresh ones
    // Once the readers gave every run back, every kept chunk is free for the next render.
    await Promise.all(holds);
    expect(holds.length).toBeGreaterThan(view.chunks.keep * 4);
    expect(view.chunks.available).toBe(view.chunks.keep);
    // Sized for the largest step (a family's block here spans chunks of 2 KB), never past its bound.
    expect(view.chunks.keep).toBeGreaterThan(SPARE_CHUNKS + 1);
  });
  it('waits for a reader that gives its chunks back within the wait allowed, taking no fresh chunk', async () => {
    const f = fleet(150);
    const view = f.view(16 * 1024);
    f.answer([view], 0, rng(5));
    const want = (await view.render('text')).body.toString('utf8');
    // A reader slower than the render: each run of bytes comes back a few ms after it was sent.
    const later = () => new Promise<void>((resolve) => setTimeout(resolve, 3));
    // The first streamed render sizes the pool for the largest step (a family's block spans chunks).
    await scrapeText(view, 'text', false);
    const fresh = view.chunks.freshTaken;
    const got = await scrapeText(view, 'text', false, later);
    expect(got.streamed).toBe(true);
    expect(got.text).toBe(want);
    expect(view.chunks.freshTaken).toBe(fresh);
  });
  it('lets the next scrape render while a plain render waits for its client, then finishes it whole', async () => {
    const f = fleet(150);
    const view = f.view(16 * 1024);
    f.answer([view], 0, rng(9));
    const want = (await view.render('text')).body.toString('utf8');
    await scrapeText(view, 'text', false); // sizes the pool
    // A client that takes nothing until let go: its render waits with every kept chunk in its socket.
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let slowEnded = false;
    const slow = view.render('text', { stream: true }).then(async (r) => {
      const body = await readStream(r, () => gate);
      slowEnded = true;
      return body.toString('utf8');
    });
    for (const gzip of [false, true]) expect((await scrapeText(view, 'text', gzip)).text).toBe(want);
    expect(slowEnded).toBe(false);
    letGo();
    expect(await slow).toBe(want);
  });
});

describe('ChunkPool', () => {
  it('hands fresh chunks beyond its size and keeps only its own; fitted smaller, drops the rest', () => {
    const pool = new ChunkPool(16, 2);
    const taken = [pool.take(), pool.take(), pool.take(), pool.take()];
    expect(pool.size).toBe(2);
    expect(pool.freshTaken).toBe(2);
    expect(pool.available).toBe(0);
    for (const c of taken) pool.give(c);
    expect(pool.available).toBe(2);
    const again = [pool.take(), pool.take()];
    expect(again).toContain(taken[0]);
    expect(again).toContain(taken[1]);
    const big = new ChunkPool(16, 12);
    big.fit(16 * 6); // a largest step of six chunks
    expect(big.keep).toBe(6 + SPARE_CHUNKS);
    expect(big.wanted).toBe(7);
    const lent = Array.from({ length: 9 }, () => big.take());
    expect(big.size).toBe(9);
    big.fit(16); // then steps of one chunk: the pool shrinks as chunks come back
    for (const c of lent) big.give(c);
    expect(big.size).toBe(1 + SPARE_CHUNKS);
    expect(big.available).toBe(1 + SPARE_CHUNKS);
    big.fit(16, 16 * 2 + 1); // a body of three chunks: no more are kept, whatever the spare
    expect(big.keep).toBe(3);
    expect(big.wanted).toBe(2);
  });

  it('keeps no more chunks than the last body filled after a streamed render', async () => {
    const f = fleet(150);
    const chunk = 256 * 1024;
    const view = f.view(chunk);
    f.answer([view], 0, rng(4));
    const bytes = (await view.render('text')).body.length;
    expect(Math.ceil(bytes / chunk)).toBeLessThan(1 + SPARE_CHUNKS); // a body of a few chunks
    expect((await scrapeText(view, 'text', false)).streamed).toBe(true);
    expect(view.chunks.keep).toBe(Math.ceil(bytes / chunk));
  });
});

describe('ChunkWriter', () => {
  it('writes strings longer than the room left, multi-byte characters included, as their UTF-8 bytes', () => {
    // Characters of 1 to 4 bytes, so that chunk ends fall inside characters' bytes.
    const unit = 'a-é-€-😀-line\n';
    for (const chunkBytes of [16, 17, 64, 1000]) {
      const handed: Buffer[] = [];
      const out = new ChunkWriter(
        new ChunkPool(chunkBytes, 4),
        { take: (b, done) => void (handed.push(Buffer.from(b)), done()) },
        false,
      );
      const big = unit.repeat(50);
      out.write('x');
      out.write(big);
      out.write('y\n');
      out.write(unit.repeat(2000)); // past the gathered text's 16 KB: encoded at once
      out.end();
      expect(Buffer.concat(handed).toString('utf8')).toBe(`x${big}y\n${unit.repeat(2000)}`);
      expect(handed.every((b) => b.length <= chunkBytes)).toBe(true);
    }
  });
});
