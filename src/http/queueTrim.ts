// Trims the list of finished requests an undici Client keeps. A Client appends every request to an
// array and cuts the finished ones off only once 257 have run (undici 7, `resume()` in
// lib/dispatcher/client.js): a node sends five requests per poll, so at a 15 s interval its array
// grows for ~13 minutes before the cut, ~1.5 KB per node, ~15 MB of heap at 10,000 nodes that
// a 10-minute soak sees as growth. undici offers no option for it, so this reaches its fields, by
// their symbols' descriptions, and does nothing when it does not find them (another undici).
// It empties the array only when the Client is idle (every request in it finished) and only from
// a timer of its own: undici reads these fields while it completes a request, before it returns.

/** The fields of one Client, when found. */
interface QueueFields {
  queue: symbol;
  running: symbol;
  pending: symbol;
}

type Fields = Record<symbol, unknown>;

const fieldsByClass = new WeakMap<object, QueueFields | null>();

function fieldsOf(client: object): QueueFields | null {
  const proto = Object.getPrototypeOf(client) as object;
  let found = fieldsByClass.get(proto);
  if (found !== undefined) return found;
  const byName = new Map(Object.getOwnPropertySymbols(client).map((s) => [s.description, s]));
  const queue = byName.get('queue');
  const running = byName.get('running index');
  const pending = byName.get('pending index');
  found = queue && running && pending ? { queue, running, pending } : null;
  fieldsByClass.set(proto, found);
  return found;
}

/**
 * Empties an idle Client's list of finished requests (a Pool's: each of its Clients'). Returns the
 * entries dropped, or undefined when the dispatcher's fields are not the ones this knows.
 */
export function trimFinished(dispatcher: object): number | undefined {
  const own = dispatcher as Fields;
  const clientsKey = Object.getOwnPropertySymbols(dispatcher).find((s) => s.description === 'clients');
  if (clientsKey !== undefined) {
    const clients = own[clientsKey];
    if (!Array.isArray(clients)) return undefined;
    let dropped = 0;
    for (const c of clients as object[]) {
      const n = trimFinished(c);
      if (n === undefined) return undefined;
      dropped += n;
    }
    return dropped;
  }
  const f = fieldsOf(dispatcher);
  if (!f) return undefined;
  const queue = own[f.queue];
  const running = own[f.running];
  const pending = own[f.pending];
  if (!Array.isArray(queue) || typeof running !== 'number' || typeof pending !== 'number') return undefined;
  // Idle: nothing running, nothing waiting; every entry is a finished request's empty slot.
  if (running !== queue.length || pending !== queue.length || queue.length === 0) return 0;
  const dropped = queue.length;
  queue.length = 0;
  own[f.running] = 0;
  own[f.pending] = 0;
  return dropped;
}
