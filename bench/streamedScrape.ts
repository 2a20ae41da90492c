// A /metrics body rendered as the server renders it (streamed through the view's pool of chunks)
// and read to its end at once, as by a fast socket: what the bench times as "render".
import type { MetricsView } from '../src/metrics/view.js';

/** A streamed scrape read to its end by a reader that gives every chunk back at once (a fast socket). */
export async function streamedScrape(view: MetricsView, gzip: boolean): Promise<number> {
  const r = await view.render('text', { gzip, stream: true });
  if (!r.stream) return gzip ? (await r.gzipped!).length : r.body.length;
  const stream = r.stream;
  return new Promise((resolve, reject) => {
    let bytes = 0;
    stream.pipe({
      write: (b, done) => {
        bytes += b.length;
        done();
      },
      end: () => resolve(bytes),
      destroy: reject,
    });
  });
}
