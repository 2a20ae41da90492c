// Trims the list of finished requests an undici Client keeps. A Client appends every request to an
// array and cuts the finished ones off only once 257 have run (undici 7, `resume()` in
// lib/dispatcher/client.js): a node sends five requests per poll, so at a 15 s interval its array
// grows for ~13 minutes before the cut, ~1.5 KB per node, ~15 MB of heap at 10,000 nodes that
// a 10-minute soak sees as growth. undici offers no option for it, so this reaches its fields, by
// their symbols' descriptions, and does nothing when it does not find them (another undici).
// It empties the array only when the Client is idle (every request in it finished) and only from
// a timer of its own: undici reads these fields while it completes a request, before it returns.

/** Where a dispatcher class keeps what the trim reads: a Client its list, a Pool its Clients. */
type Layout =
  { kind: 'client'; queue: symbol; running: symbol; pending: symbol } | { kind: 'pool'; clients: symbol } | null;

type Fields = Record<symbol, unknown>;

/** Per class (prototype): found once, from the first instance's own symbol-keyed fields. */
const layouts = new WeakMap<object, Layout>();

function layoutOf(dispatcher: object): Layout {
  const proto = Object.getPrototypeOf(dispatcher) as object;
  let found = layouts.get(proto);
  if (found !== undefined) return found;
  const byName = new Map(Object.getOwnPropertySymbols(dispatcher).map((s) => [s.description, s]));
  const [clients, queue, running, pending] = ['clients', 'queue', 'running index', 'pending index'].map((n) =>
    byName.get(n),
  );
  if (clients) found = { kind: 'pool', clients };
  else found = queue && running && pending ? { kind: 'client', queue, running, pending } : null;
  layouts.set(proto, found);
  return found;
}

/**
 * Empties an idle Client's list of finished requests (a Pool's: each of its Clients'). Returns the
 * entries dropped, or undefined when the dispatcher's fields are not the ones this knows.
 */
export function trimFinished(dispatcher: object): number | undefined {
  const own = dispatcher as Fields;
  const layout = layoutOf(dispatcher);
  if (!layout) return undefined;
  if (layout.kind === 'pool') {
    const clients = own[layout.clients];
    if (!Array.isArray(clients)) return undefined;
    let dropped = 0;
    for (const c of clients as object[]) {
      const n = trimFinished(c);
      if (n === undefined) return undefined;
      dropped += n;
    }
    return dropped;
  }
  const queue = own[layout.queue];
  const running = own[layout.running];
  const pending = own[layout.pending];
  if (!Array.isArray(queue) || typeof running !== 'number' || typeof pending !== 'number') return undefined;
  // Idle: nothing running, nothing waiting; every entry is a finished request's empty slot.
  if (running !== queue.length || pending !== queue.length || queue.length === 0) return 0;
  const dropped = queue.length;
  queue.length = 0;
  own[layout.running] = 0;
  own[layout.pending] = 0;
  return dropped;
}
