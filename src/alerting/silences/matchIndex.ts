// The silences by id, with what makes asking "which silences match these labels" cheap when
// there are thousands: each silence is filed under one of its equality matchers (an alert can
// only match it when it has that label value), and the answer for a label set is remembered
// until a silence changes, since the mute stage asks about the same alerts at every decision.
import { labelsKey } from '../rules/labels.js';
import type { Labels } from '../rules/types.js';
import type { LabelTest } from './matchers.js';
import type { Silence } from './types.js';

export interface IndexedSilence {
  silence: Silence;
  test: LabelTest;
}

/** Remembered answers beyond this are dropped at once (label sets come and go with alerts). */
const MEMO_MAX = 50_000;
const SEP = '\u0000';

/** The equality matcher a silence is filed under: one with a value, not alertname when it has another. */
function fileKey(s: Silence): string | undefined {
  const eq = s.matchers.filter((m) => m.isEqual && !m.isRegex && m.value !== '');
  const m = eq.find((x) => x.name !== 'alertname') ?? eq[0];
  return m && m.name + SEP + m.value;
}

export class SilenceIndex<E extends IndexedSilence = IndexedSilence> extends Map<string, E> {
  private readonly filed = new Map<string, Set<string>>();
  private readonly unfiled = new Set<string>();
  private readonly memo = new Map<string, string[]>();

  override set(id: string, e: E): this {
    this.unfile(id);
    super.set(id, e);
    const key = fileKey(e.silence);
    if (key === undefined) this.unfiled.add(id);
    else {
      let ids = this.filed.get(key);
      if (!ids) this.filed.set(key, (ids = new Set()));
      ids.add(id);
    }
    this.memo.clear();
    return this;
  }

  override delete(id: string): boolean {
    this.unfile(id);
    this.memo.clear();
    return super.delete(id);
  }

  /** The silences whose matchers all match these labels, whatever their state. */
  matching(labels: Labels): E[] {
    const key = labelsKey(labels);
    let ids = this.memo.get(key);
    if (!ids) {
      ids = [];
      const consider = (id: string) => {
        if (super.get(id)!.test(labels)) ids!.push(id);
      };
      for (const id of this.unfiled) consider(id);
      for (const name of Object.keys(labels))
        for (const id of this.filed.get(name + SEP + labels[name]) ?? []) consider(id);
      if (this.memo.size >= MEMO_MAX) this.memo.clear();
      this.memo.set(key, ids);
    }
    return ids.map((id) => super.get(id)!);
  }

  private unfile(id: string): void {
    const e = super.get(id);
    if (!e) return;
    this.unfiled.delete(id);
    const key = fileKey(e.silence);
    if (key !== undefined) this.filed.get(key)?.delete(id);
  }
}
