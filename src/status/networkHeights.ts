// The highest height of each network's up nodes, kept as nodes report, so the board learns which
// networks' tip moved (every node of those has a new lag) without walking the fleet.

export class NetworkHeights {
  /** Per network: how many up nodes are at each height. */
  private readonly counts = new Map<string, Map<number, number>>();
  private readonly top = new Map<string, number>();
  /** Each network's highest height at the last settle(). */
  private readonly settled = new Map<string, number>();
  private readonly touched = new Set<string>();

  /** Forgets every height (a full read follows); networks known before count as touched. */
  reset(): void {
    for (const net of this.settled.keys()) this.touched.add(net);
    this.counts.clear();
    this.top.clear();
  }

  /** A node of `net` went from height `before` to `after` (undefined: not counted, e.g. down). */
  move(net: string, before: number | undefined, after: number | undefined): void {
    if (before === after) return;
    if (before !== undefined) this.remove(net, before);
    if (after !== undefined) this.add(net, after);
  }

  max(net: string): number | undefined {
    return this.top.get(net);
  }

  /** The networks whose highest height changed since the last call. */
  settle(): string[] {
    const moved: string[] = [];
    for (const net of this.touched) {
      const now = this.top.get(net);
      if (now === this.settled.get(net)) continue;
      moved.push(net);
      if (now === undefined) this.settled.delete(net);
      else this.settled.set(net, now);
    }
    this.touched.clear();
    return moved;
  }

  private add(net: string, h: number): void {
    let c = this.counts.get(net);
    if (!c) this.counts.set(net, (c = new Map<number, number>()));
    c.set(h, (c.get(h) ?? 0) + 1);
    const top = this.top.get(net);
    if (top === undefined || h > top) this.top.set(net, h);
    this.touched.add(net);
  }

  private remove(net: string, h: number): void {
    const c = this.counts.get(net);
    const n = c?.get(h);
    if (!c || n === undefined) return;
    if (n > 1) return void c.set(h, n - 1);
    c.delete(h);
    this.touched.add(net);
    if (this.top.get(net) !== h) return;
    let top: number | undefined;
    for (const k of c.keys()) if (top === undefined || k > top) top = k;
    if (top === undefined) this.top.delete(net);
    else this.top.set(net, top);
  }
}
