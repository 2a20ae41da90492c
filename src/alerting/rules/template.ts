// Renders the subset of Prometheus's Go templates our annotations use, so the built-in engine
// writes the same text Prometheus would: {{ $labels.x }}, {{ $value }}, {{ printf "%.0f" $value }},
// {{ $value | humanizePercentage }} and {{ if $labels.x }}...{{ else }}...{{ end }} (not nested).

const IF_RE =
  /\{\{\s*if\s+\$labels\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}([\s\S]*?)(?:\{\{\s*else\s*\}\}([\s\S]*?))?\{\{\s*end\s*\}\}/g;
const ACTION_RE = /\{\{\s*([^}]*?)\s*\}\}/g;

export function renderTemplate(template: string, labels: Readonly<Record<string, string>>, value: number): string {
  const branched = template.replace(IF_RE, (_m, name: string, then: string, otherwise?: string) =>
    labels[name] ? then : (otherwise ?? ''),
  );
  return branched.replace(ACTION_RE, (_m, action: string) => renderAction(action, labels, value));
}

function renderAction(action: string, labels: Readonly<Record<string, string>>, value: number): string {
  const label = /^\$labels\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(action);
  if (label) return labels[label[1]!] ?? '';
  if (action === '$value') return String(value);
  if (/^printf\s+"%\.0f"\s+\$value$/.test(action)) return Math.round(value).toFixed(0);
  if (/^\$value\s*\|\s*humanizePercentage$/.test(action)) return `${fourSignificant(value * 100)}%`;
  throw new Error(`unsupported template action {{ ${action} }}`);
}

/** Go's %.4g without exponent for the magnitudes we print. */
function fourSignificant(n: number): string {
  if (n === 0) return '0';
  return String(Number(n.toPrecision(4)));
}
