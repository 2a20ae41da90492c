// Scrapes the exporter from a process of its own, as Prometheus does: a scraper inside the
// exporter's process would wait for its own answer in the exporter's busy event loop and count
// its decoding as the exporter's CPU and RSS. Started with fork(); each message asks for one
// scrape (gzip as Prometheus asks, or plain), each reply is the time to the last byte and the
// overruns counted in the decoded body.
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

export interface ScrapeRequest {
  url: string;
  /** Ask for gzip, as Prometheus does by default; false: the plain text. */
  gzip: boolean;
}

export interface ScrapeReply {
  ms: number;
  overruns: number;
  error?: string;
}

function overrunsIn(text: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('ledger_exporter_poll_overruns_total{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

async function scrapeOnce({ url, gzip }: ScrapeRequest): Promise<ScrapeReply> {
  const t0 = performance.now();
  const res = await request(url + '/metrics', { headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' } });
  const body = Buffer.from(await res.body.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) return { ms, overruns: 0, error: `HTTP ${res.statusCode}` };
  const gzipped = res.headers['content-encoding'] === 'gzip';
  return { ms, overruns: overrunsIn((gzipped ? gunzipSync(body) : body).toString('utf8')) };
}

process.on('message', (req: ScrapeRequest) => {
  scrapeOnce(req).then(
    (r) => process.send!(r),
    (err: Error) => process.send!({ ms: 0, overruns: 0, error: err.message } satisfies ScrapeReply),
  );
});
process.on('disconnect', () => process.exit(0));
