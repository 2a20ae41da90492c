// Scrapes the exporter from a process of its own, as Prometheus does: a scraper inside the
// exporter's process would wait for its own answer in the exporter's busy event loop and count
// its decoding as the exporter's CPU and RSS. Started with fork(); each message is a URL to
// scrape, each reply the time to the last byte and the overruns counted in the decoded body.
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

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

async function scrapeOnce(url: string): Promise<ScrapeReply> {
  const t0 = performance.now();
  const res = await request(url + '/metrics', { headers: { 'accept-encoding': 'gzip' } });
  const body = Buffer.from(await res.body.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) return { ms, overruns: 0, error: `HTTP ${res.statusCode}` };
  const gzipped = res.headers['content-encoding'] === 'gzip';
  return { ms, overruns: overrunsIn((gzipped ? gunzipSync(body) : body).toString('utf8')) };
}

process.on('message', (url: string) => {
  scrapeOnce(url).then(
    (r) => process.send!(r),
    (err: Error) => process.send!({ ms: 0, overruns: 0, error: err.message } satisfies ScrapeReply),
  );
});
process.on('disconnect', () => process.exit(0));
