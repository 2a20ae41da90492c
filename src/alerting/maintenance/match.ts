// `match: {label: value}`: each value is exact, or `~regex` matched against the whole value.
// A label the alert does not carry reads as "" (as in Alertmanager), so `~.*` selects every alert.

/** Label name -> exact value, or `~regex` (anchored at both ends). */
export type LabelMatch = Readonly<Record<string, string>>;

export type LabelMatcher = (labels: Readonly<Record<string, string>>) => boolean;

/** Why a match value cannot be used (a bad regex), or undefined. */
export function matchValueReason(value: string): string | undefined {
  if (!value.startsWith('~')) return undefined;
  try {
    anchored(value.slice(1));
    return undefined;
  } catch (e) {
    return `invalid regex after "~": ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
}

/** Compiles once; throws on a bad regex (config checks report it first, with its position). */
export function compileLabelMatch(match: LabelMatch): LabelMatcher {
  const tests = Object.entries(match).map(([name, value]): ((labels: Readonly<Record<string, string>>) => boolean) => {
    if (!value.startsWith('~')) return (labels) => (labels[name] ?? '') === value;
    const re = anchored(value.slice(1));
    return (labels) => re.test(labels[name] ?? '');
  });
  return (labels) => tests.every((t) => t(labels));
}

function anchored(source: string): RegExp {
  return new RegExp(`^(?:${source})$`, 'u');
}
