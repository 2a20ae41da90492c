// Renders the subset of Prometheus's Go templates our annotations use, so the built-in engine
// writes the same text Prometheus would: {{ $labels.x }}, {{ $value }}, {{ printf "%.0f" $value }},
// {{ $value | humanizePercentage }}, {{ if $labels.x }}...{{ else }}...{{ end }} (not nested), and
// one series of another metric looked up for the alert's own labels:
//   {{ with query (printf "metric{name=%q,...}" $labels.name ...) }}...{{ . | first | value | humanizePercentage }}
//   ...{{ else }}...{{ end }}
// where the built-in engine takes the metric's value from the sample's refs (AlertSample.refs).

const IF_RE =
  /\{\{\s*if\s+\$labels\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}([\s\S]*?)(?:\{\{\s*else\s*\}\}([\s\S]*?))?\{\{\s*end\s*\}\}/g;
const ACTION_RE = /\{\{\s*([^}]*?)\s*\}\}/g;
const WITH_QUERY_RE =
  /\{\{\s*with\s+query\s+\(printf\s+"([a-zA-Z_:][a-zA-Z0-9_:]*)\{[^"]*\}"(?:\s+\$labels\.[A-Za-z_][A-Za-z0-9_]*)*\s*\)\s*\}\}([\s\S]*?)(?:\{\{\s*else\s*\}\}([\s\S]*?))?\{\{\s*end\s*\}\}/g;
const FIRST_VALUE_RE = /\{\{\s*\.\s*\|\s*first\s*\|\s*value\s*\|\s*humanizePercentage\s*\}\}/g;

export function renderTemplate(
  template: string,
  labels: Readonly<Record<string, string>>,
  value: number,
  refs: Readonly<Record<string, number>> = {},
): string {
  const looked = template.replace(WITH_QUERY_RE, (_m, metric: string, then: string, otherwise?: string) => {
    const found = refs[metric];
    return found === undefined ? (otherwise ?? '') : then.replace(FIRST_VALUE_RE, () => percentOf(found));
  });
  const branched = looked.replace(IF_RE, (_m, name: string, then: string, otherwise?: string) =>
    labels[name] ? then : (otherwise ?? ''),
  );
  return branched.replace(ACTION_RE, (_m, action: string) => renderAction(action, labels, value));
}

function renderAction(action: string, labels: Readonly<Record<string, string>>, value: number): string {
  const label = /^\$labels\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(action);
  if (label) return labels[label[1]!] ?? '';
  if (action === '$value') return String(value);
  if (/^printf\s+"%\.0f"\s+\$value$/.test(action)) return Math.round(value).toFixed(0);
  if (/^\$value\s*\|\s*humanizePercentage$/.test(action)) return percentOf(value);
  throw new Error(`unsupported template action {{ ${action} }}`);
}

const percentOf = (ratio: number): string => `${fourSignificant(ratio * 100)}%`;

/** Go's %.4g without exponent for the magnitudes we print. */
function fourSignificant(n: number): string {
  if (n === 0) return '0';
  return String(Number(n.toPrecision(4)));
}
