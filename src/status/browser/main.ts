// The status pages' script, served from /static/status.js (bundled by npm run build): refreshes
// the page from the JSON API it names in data-api, keeps relative times and "updated N s ago"
// current, and says when updates fail. The pages work without it (they reload themselves).
import type { FleetJson, NodeJson } from './apiTypes.js';
import { loadActions } from './actions.js';
import { fmt, isDue, now, rel, setServerTime } from './dom.js';
import { fleet, openGroups } from './fleet.js';
import { node } from './node.js';

const body = document.body;
const api = body.getAttribute('data-api');
const refresh = Math.max(1000, Number(body.getAttribute('data-refresh')) || 5000);
let lastOk = Number(body.getAttribute('data-generated')) || Date.now();
let failing = false;

function tick(): void {
  document.querySelectorAll('[data-rel-of]').forEach((e) => {
    e.textContent = rel(Number(e.getAttribute('data-rel-of')));
  });
  document.querySelectorAll('[data-next-of]').forEach((e) => {
    if (isDue(Number(e.getAttribute('data-next-of'))) && e.textContent !== 'due now') e.textContent = 'due now';
  });
  const u = document.getElementById('updated');
  if (u) {
    u.textContent = `${failing ? 'update failed, retrying; last updated ' : 'updated '}${fmt(now() - lastOk)} ago`;
    u.classList.toggle('stale', failing || now() - lastOk > 3 * refresh);
  }
}

async function poll(url: string): Promise<void> {
  try {
    const res = await fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const data = (await res.json()) as Partial<FleetJson & NodeJson> & { generatedAt: number };
    setServerTime(data.generatedAt);
    lastOk = data.generatedAt;
    failing = false;
    if (data.nodes) fleet(data as FleetJson);
    else if (data.node) node(data as NodeJson);
  } catch {
    failing = true;
  }
  tick();
  setTimeout(() => void poll(url), refresh);
}

openGroups(document);
tick();
setInterval(tick, 1000);
void loadActions();
if (api) setTimeout(() => void poll(api), refresh);
