// The plain landing page: links and one row per node. Everything shown is escaped.
import type { FleetSnapshot } from './state/snapshot.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small status page: links, and one row per node. Everything shown is escaped. */
export function landingPage(version: string, snap: FleetSnapshot, ready: boolean): string {
  const rows = snap.nodes
    .map((n) => {
      const failing = n.probes.filter((p) => p.success === false).map((p) => p.probe);
      return (
        `<tr ` +
        `class="${n.up ? 'up' : 'down'}"><td>${esc(n.name)}</td><td>${esc(n.network)}</td>` +
        `<td>${n.up ? 'up' : 'DOWN'}</td><td>${n.height ?? ''}</td><td>${n.lagBlocks ?? ''}</td>` +
        `<td>${esc(n.health?.version ?? '')}</td><td>${esc(n.namespace ?? '')}</td>` +
        `<td>${esc(failing.join(', '))}</td></tr>`
      );
    })
    .join('\n');
  const nets = snap.networks
    .map(
      (n) =>
        `<tr><td>${esc(n.network)}</td><td>${n.nodesUp}/${n.nodes}</td><td>${n.heightMax ?? ''}</td>` +
        `<td>${n.validators?.list.length ?? ''}</td><td>${n.mining?.active ?? ''}</td></tr>`,
    )
    .join('\n');
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ledger-fleet-exporter</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.2em ` +
    `.8em;border-bottom:1px solid #ddd;text-align:left}.down td{color:#b00}</style>
</head><body>
<h1>ledger-fleet-exporter</h1>
<p>Version ${esc(version)} &middot; ${ready ? 'ready' : 'first poll round in progress'}</p>
<ul><li><a href="metrics">/metrics</a></li><li><a href="healthz">/healthz</a></li><li><a href="readyz">/readyz</a>` +
    `</li><li><a href="api/evidence?limit=20">/api/evidence</a></li></ul>
<h2>Networks</h2>
<table><tr><th>network</th><th>nodes up</th><th>height</th><th>validators</th><th>active miners</th></tr>
${nets}
</table>
<h2>Nodes</h2>
<table><tr><th>node</th><th>network</th><th>status</th><th>height</th><th>lag</th><th>version</th><th>namespace</th>` +
    `<th>failing probes</th></tr>
${rows}
</table>
</body></html>
`
  );
}
