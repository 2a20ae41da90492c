// The /metrics view, built once per daemon and rendered from one FleetSnapshot per scrape, so a
// removed node, a departed validator or a changed version simply stops appearing. A config
// reload changes only the info label keys (setInfoLabelKeys); registries are never rebuilt.
// - The exporter's own metrics (build info, reloads, overruns: exporterFamilies.ts; evidence, agent
//   platform, process_*, nodejs_*) live in prom-client registries of our own: one per format, with
//   separate metric objects, because prom-client renames counters in place when rendering
//   OpenMetrics; process_* and nodejs_* come from the process-wide registries of processMetrics.ts.
// - The per-node and per-network families (tens of thousands of series for a large fleet) are
//   written by fleetText.ts straight into bytes (pooled chunks streamed to the client for /metrics,
//   streamRender.ts; one Buffer for a whole render): through prom-client (per-series label
//   hashing) a 1,000-node scrape took ~190 ms. Per-node work happens as results arrive
//   (noteResult): upstream lines are prepared and encoded, each changed node's lines are built
//   in a batch (fleetColumns.ts), so a scrape mostly copies ready bytes (npm run bench -- --render).
import { Registry } from '../deps/promClient.js';
import { SYSTEM_CLOCK } from '../clock/clock.js';
import { RESERVED_LABELS } from '../config/rules.js';
import type { PreparedUpstream } from '../exposition/index.js';
import type { NodeState } from '../state/fleetState.js';
import { nodeView, type FleetSnapshot } from '../state/snapshot.js';
import { ByteWriter, type TextOut } from './byteWriter.js';
import { exporterCollectors, type ExporterCounters } from './exporterFamilies.js';
import type { BodyStream } from './bodyStream.js';
import { ChunkPool } from './chunkPool.js';
import { FleetColumns } from './fleetColumns.js';
import { fleetSteps } from './fleetText.js';
import { drain } from './steps.js';
import { streamedAnswer, streamRender, type StreamHead } from './streamRender.js';
import { GZIP_PIECE_BYTES, GzipPieces } from './gzip.js';
import { processMetricsRegistry } from './processMetrics.js';
import { FamilyRegistry } from '../exposition/textFamily.js';

const nothing = (): undefined => undefined;

/** A kind of body (plain, gzip) rendered within this many renders sizes the memory kept (see worthKeeping). */
const RECENT_RENDERS = 8;

/** How long results gather before their nodes' lines are built (a node's probes finish within it). */
const CHUNK_BATCH_MS = 200;

export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;
export const TEXT_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export type { ExporterCounters };

/** One scrape's inputs, computed once and shared by every collector. */
export interface ScrapeInput {
  snapshot: FleetSnapshot;
  upstream: Iterable<PreparedUpstream>;
  counters: ExporterCounters;
}

/** Extra metric sources (evidence store, agent platform) register their own collectors per registry. */
export type RegistryExtension = (registry: Registry) => void;

export interface MetricsViewOptions {
  version: string;
  /** Union of configured label keys across nodes (for ledger_node_info). */
  infoLabelKeys: string[];
  extensions?: RegistryExtension[];
  /** process_* and nodejs_* metrics; off in unit tests for stable output. */
  defaultMetrics?: boolean;
  /** Monotonic time, the clock of the node state (a backoff's end); default the system's. */
  now?: () => number;
  /** Bytes per chunk of a streamed body (chunkPool.ts); tests use small ones. */
  chunkBytes?: number;
}

/** Builds one registry whose collectors read `input()` at scrape time. */
function buildRegistry(contentType: string, opts: MetricsViewOptions, input: () => ScrapeInput): Registry {
  const registry = new FamilyRegistry(contentType);
  exporterCollectors(registry, opts.version, input);
  for (const ext of opts.extensions ?? []) ext(registry);
  return registry;
}

export interface RenderedMetrics {
  contentType: string;
  /** The exposition; with gzip, without the blocks whose kept compression `gzipped` holds (reusedBytes). */
  body: Buffer;
  /** The body as one gzip member, when asked for: compressed in pieces while it was written. */
  gzipped?: Promise<Buffer>;
  /** Bytes of the exposition whose compressed form an earlier scrape made, left out of `body` (gzip only). */
  reusedBytes?: number;
  /**
   * The body's memory may be written by a later render: call once nothing reads the body any
   * more (gzipped settled, or the render only measured). Not calling it is always safe.
   */
  release(): void;
  /**
   * Asked for with `stream`: the body larger than one chunk, to be piped to the client (`body` is
   * then empty). A body that fits one chunk comes whole instead, in `body` or `gzipped`.
   */
  stream?: BodyStream;
}

export class MetricsView {
  private readonly text: Registry;
  private readonly openMetrics: Registry;
  private current: ScrapeInput | undefined;
  private infoKeys: string[] = [];
  private readonly defaultMetrics: boolean;
  private readonly now: () => number;
  /** Renders so far. */
  private renders = 0;
  /** Each kind's last body size and render number: a gzip render leaves the blocks it reuses out of its body. */
  private readonly last = { plain: { bytes: 0, render: 0 }, gzip: { bytes: 0, render: 0 } };
  /** Memory of a body its reader released, for the next render. */
  private spare: Buffer | undefined;
  /** Each node's lines, kept between scrapes (both formats write the same sample lines). */
  private readonly columns = new FleetColumns();
  /** Nodes with results since their lines were written; rewritten together shortly after. */
  private readonly changed = new Set<NodeState>();
  private buildTimer: NodeJS.Timeout | undefined;
  /** Scrapes are serialised: collectors share `current`. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The chunks streamed bodies are written into (kept between scrapes). */
  readonly chunks: ChunkPool;

  constructor(
    opts: MetricsViewOptions,
    private readonly inputs: () => ScrapeInput,
    /** Writes the upstream families into `out`, or returns steps that do (a streamed scrape may pause between). */
    private readonly writeUpstream: (
      sources: Iterable<PreparedUpstream>,
      openMetrics: boolean,
      out: TextOut,
    ) => Iterable<unknown> | void,
    /** The node-level work a result makes due (upstream lines), done when the result arrives. */
    private readonly prepareNode?: (node: NodeState) => void,
  ) {
    const input = () => {
      if (!this.current) throw new Error('collect outside a scrape');
      return this.current;
    };
    this.setInfoLabelKeys(opts.infoLabelKeys);
    this.defaultMetrics = opts.defaultMetrics !== false;
    this.now = opts.now ?? (() => SYSTEM_CLOCK.mono());
    this.chunks = new ChunkPool(opts.chunkBytes);
    this.text = buildRegistry(TEXT_CONTENT_TYPE, opts, input);
    this.openMetrics = buildRegistry(OPENMETRICS_CONTENT_TYPE, opts, input);
  }

  /** A probe result was applied to `node`: prepares what the next scrape will copy. */
  noteResult(node: NodeState): void {
    this.prepareNode?.(node);
    this.changed.add(node);
    // A node's probes answer one after another within a few ms: one build covers them all.
    this.buildTimer ??= setTimeout(() => this.buildChanged(), CHUNK_BATCH_MS).unref();
  }

  /** Rewrites the lines of the nodes that changed, off the scrape path. */
  buildChanged(now = this.now()): void {
    this.buildTimer = undefined;
    const layout = this.columns.layout();
    for (const node of this.changed) this.columns.update(nodeView(node, now), this.infoKeys, layout);
    this.changed.clear();
  }

  /** Label keys exposed on ledger_node_info (after a config reload). */
  setInfoLabelKeys(keys: string[]): void {
    // Config validation refuses these already; the view never lets one shadow its own labels.
    const next = keys.filter((k) => !(RESERVED_LABELS as readonly string[]).includes(k));
    // The same keys keep every node's kept lines (new keys rewrite them all).
    if (next.length !== this.infoKeys.length || next.some((k, i) => k !== this.infoKeys[i])) this.infoKeys = next;
  }

  /**
   * Renders our metrics and the re-exposed upstream families in the requested format. With
   * `stream`, into pooled chunks: settles as soon as the reply's form is known (see
   * RenderedMetrics.stream) while the render goes on; the next render starts once this one's
   * bytes are all written and compressed, or once it waits for its client (a plain body larger
   * than the pool): renders then overlap, each reading only what it took at its start and lines
   * that results may rewrite between steps anyway.
   */
  render(format: 'text' | 'openmetrics', opts: { gzip?: boolean; stream?: boolean } = {}): Promise<RenderedMetrics> {
    const gzip = opts.gzip === true;
    let answer: Promise<RenderedMetrics>, run: Promise<unknown>;
    if (opts.stream) {
      let settle!: (h: StreamHead) => void;
      const head = new Promise<StreamHead>((resolve) => (settle = resolve));
      let waits!: () => void;
      const waiting = new Promise<void>((resolve) => (waits = resolve));
      run = this.queue.then(() => this.streamNow(format, gzip, settle, waits));
      const contentType = (format === 'openmetrics' ? this.openMetrics : this.text).contentType;
      // A failure after the head broke the stream (streamRender); before it, it is the answer.
      answer = Promise.race([head, run.then(() => head)]).then((h) => streamedAnswer(contentType, gzip, h));
      this.queue = Promise.race([waiting, run.then(nothing, nothing)]);
      return answer;
    }
    run = answer = this.queue.then(() => this.renderNow(format, gzip));
    // The queue holds no result: a settled render would otherwise keep the last body (MBs) alive.
    this.queue = run.then(nothing, nothing);
    return answer;
  }

  private async streamNow(
    format: 'text' | 'openmetrics',
    gzip: boolean,
    head: (h: StreamHead) => void,
    onClientWait: () => void,
  ) {
    const input = (this.current = this.inputs());
    const om = format === 'openmetrics';
    let own: string, processOwn: string;
    try {
      own = await (om ? this.openMetrics : this.text).metrics();
      processOwn = this.defaultMetrics ? await processMetricsRegistry(format).metrics() : '';
    } finally {
      // The collectors are done; a render waiting for its client lets the next one set its own.
      this.current = undefined;
    }
    await streamRender(this.chunks, gzip, (out) => this.steps(out, om, own, processOwn, input), head, onClientWait);
  }

  /** The whole body, written in steps (see steps.ts). */
  private *steps(
    out: TextOut,
    om: boolean,
    own: string,
    processOwn: string,
    { snapshot, upstream }: ScrapeInput,
  ): Generator<void, void, undefined> {
    yield* fleetSteps(out, snapshot, { openMetrics: om, infoLabelKeys: this.infoKeys }, this.columns);
    if (!om) out.write('\n');
    writeRegistryText(out, own, om);
    writeRegistryText(out, processOwn, om);
    yield;
    const up = this.writeUpstream(upstream, om, out);
    if (up) for (const _ of up) yield;
    if (om) out.write('# EOF\n');
  }

  private async renderNow(format: 'text' | 'openmetrics', gzip: boolean): Promise<RenderedMetrics> {
    this.current = this.inputs();
    try {
      const om = format === 'openmetrics';
      const registry = om ? this.openMetrics : this.text;
      const own = await registry.metrics();
      const processOwn = this.defaultMetrics ? await processMetricsRegistry(format).metrics() : '';
      // Sized from the last scrape, so a large fleet's output is written without regrowing; in
      // the memory of a released body if any: fresh memory costs a page fault per 4 KB (~50 ms
      // of CPU for a 10,000-node body), written memory does not.
      const kind = gzip ? 'gzip' : 'plain';
      const last = this.last[kind].bytes;
      const want = last + (last >> 3);
      const spare = this.spare && this.spare.length >= last ? this.spare : undefined;
      const gz = gzip ? new GzipPieces() : undefined;
      const out = new ByteWriter(
        want,
        spare,
        gz && {
          everyBytes: GZIP_PIECE_BYTES,
          take: (piece) => gz.add(piece),
          takeCompressed: (piece) => gz.addCompressed(piece),
        },
      );
      this.spare = undefined;
      drain(this.steps(out, om, own, processOwn, this.current));
      out.handRest();
      this.last[kind] = { bytes: out.length, render: ++this.renders };
      const storage = out.storage();
      let released = false;
      const release = () => {
        // Once only: a second call could hand out memory a later render is writing.
        if (!released && this.worthKeeping(storage)) this.spare = storage;
        released = true;
      };
      return {
        contentType: registry.contentType,
        body: out.bytes(),
        ...(gz && { gzipped: gz.finish(), reusedBytes: out.reusedBytes }),
        release,
      };
    } finally {
      this.current = undefined;
    }
  }

  /**
   * Released memory is kept for the next render when it is near the size of the largest last body
   * of a kind rendered lately (a gzip body leaves the reused blocks out, about half of a plain
   * one), so that plain and gzip scrapes share one memory instead of each dropping the other's,
   * which stays resident until a full GC. Larger memory (a first render grows by doubling past its
   * body, the fleet shrank, plain scrapes stopped) is dropped: it would stay allocated for good.
   */
  private worthKeeping(storage: Buffer): boolean {
    const recent = ({ bytes, render }: { bytes: number; render: number }) =>
      this.renders - render < RECENT_RENDERS ? bytes : 0;
    const largest = Math.max(recent(this.last.plain), recent(this.last.gzip));
    return storage.length <= largest + (largest >> 1) + 64 * 1024;
  }
}

/**
 * A registry's exposition, ending in a newline, without its `# EOF` (in OpenMetrics only the end
 * of the whole body has one). Written as it is: at 10,000 nodes it is ~1 MB, and joining two of
 * them then editing the end copied them (~5 ms per scrape).
 */
function writeRegistryText(out: TextOut, text: string, openMetrics: boolean): void {
  const end = openMetrics && text.endsWith('# EOF\n') ? text.length - '# EOF\n'.length : text.length;
  if (end === 0) return;
  out.write(end === text.length ? text : text.slice(0, end));
  if (text.charCodeAt(end - 1) !== 10) out.write('\n');
}
