// Acting on alerts (fleet page only): each firing alert card offers "Acknowledge", "Silence 1h"
// and "Silence 4h" to a signed-in writer (GET /api/v1/session), and a silences list offers
// "Expire"; everyone sees on a silenced alert who silenced it, until when and why. Writes are
// same-origin and carry the session's write token; a 403 fetches a new token once and retries.
// Text from alerts and silences is inserted as text, never as HTML.
import type { GettableAlert, GettableSilence, SessionJson } from './apiTypes.js';
import { el, text, timeEl } from './dom.js';

const acting: { session: SessionJson | null; alerts: GettableAlert[] | null; silences: GettableSilence[] | null } = {
  session: null,
  alerts: null,
  silences: null,
};

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { cache: 'no-store', headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function loadSession(): Promise<SessionJson> {
  try {
    acting.session = await getJson<SessionJson>('api/v1/session');
  } catch {
    acting.session = { writer: false };
  }
  return acting.session;
}

/** One write; on a 403 a new token is fetched once and the write retried. */
async function write(method: string, path: string, body: unknown, retried = false): Promise<Response> {
  const s = acting.session ?? { writer: false };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (s.tokenHeader && s.writeToken) headers[s.tokenHeader] = s.writeToken;
  const res = await fetch(path, { method, headers, body: body == null ? undefined : JSON.stringify(body) });
  if (res.status === 403 && !retried) {
    await loadSession();
    return write(method, path, body, true);
  }
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return res;
}

/** Reads the session (once), the alerts and the silences, then redraws; a failure leaves the page as it is. */
export async function loadActions(): Promise<void> {
  if (!document.getElementById('alerts')) return;
  try {
    if (!acting.session) await loadSession();
    const [alerts, silences] = await Promise.all([
      getJson<GettableAlert[]>('api/v2/alerts'),
      getJson<GettableSilence[]>('api/v2/silences'),
    ]);
    acting.alerts = alerts;
    acting.silences = silences;
    drawActions();
  } catch {
    // The next refresh tries again.
  }
}

function cardLabels(li: Element): Record<string, string> {
  try {
    return JSON.parse(li.getAttribute('data-labels') ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

/** The /api/v2/alerts entry a card shows: the same alert name and every label the card carries. */
function alertOf(li: Element): GettableAlert | undefined {
  const name = li.getAttribute('data-alertname');
  const labels = cardLabels(li);
  return (acting.alerts ?? []).find(
    (a) => a.labels.alertname === name && Object.keys(labels).every((k) => a.labels[k] === labels[k]),
  );
}

const silenceOf = (id: string): GettableSilence | undefined => (acting.silences ?? []).find((s) => s.id === id);

function until(ms: number): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(text(' until '), timeEl(ms));
  return f;
}

function say(words: string): void {
  const p = document.getElementById('act-msg');
  if (p) p.textContent = words;
}

function button(words: string, onClick: () => Promise<unknown>): HTMLButtonElement {
  const b = el('button', 'act', words);
  b.setAttribute('type', 'button');
  // Disabled while its write runs (no double silence); a redraw replaces it with a fresh button.
  b.addEventListener('click', () => {
    b.disabled = true;
    say('');
    onClick()
      .then(
        () => loadActions(),
        (e: unknown) => say(e instanceof Error ? e.message : String(e)),
      )
      .finally(() => {
        b.disabled = false;
      });
  });
  return b;
}

function silenceFor(a: GettableAlert, hours: number): Promise<Response> {
  const start = Date.now();
  return write('POST', 'api/v2/silences', {
    matchers: Object.entries(a.labels).map(([name, value]) => ({ name, value, isRegex: false, isEqual: true })),
    startsAt: new Date(start).toISOString(),
    endsAt: new Date(start + hours * 3600000).toISOString(),
    createdBy: acting.session?.user,
    comment: `silenced ${hours}h from the status page`,
  });
}

function ack(a: GettableAlert): Promise<Response> {
  return write('POST', 'api/v1/alerts/ack', {
    fingerprint: a.fingerprint,
    createdBy: acting.session?.user,
    comment: 'acknowledged on the status page',
  });
}

function silencedNote(a: GettableAlert): HTMLElement {
  const box = el('div', 'silenced-note');
  for (const id of a.status.silencedBy) {
    const s = silenceOf(id);
    const line = el('span', 'silenced-by');
    line.append(el('span', 'tag', 'silenced'), text(` by ${s ? s.createdBy : `silence ${id}`}`));
    if (s) line.appendChild(until(Date.parse(s.endsAt)));
    if (s?.comment) line.appendChild(text(`: ${s.comment}`));
    box.appendChild(line);
  }
  return box;
}

function drawCard(li: Element): void {
  li.querySelector('.acts')?.remove();
  const a = alertOf(li);
  if (!a) return;
  const box = el('div', 'acts');
  if (a.status.silencedBy.length) box.appendChild(silencedNote(a));
  else if (acting.session?.writer && li.classList.contains('firing')) {
    box.append(
      button('Acknowledge', () => ack(a)),
      button('Silence 1h', () => silenceFor(a, 1)),
      button('Silence 4h', () => silenceFor(a, 4)),
    );
  }
  if (box.childNodes.length) li.appendChild(box);
}

const matchersText = (s: GettableSilence): string =>
  s.matchers.map((m) => `${m.name}${m.isEqual === false ? '!' : ''}${m.isRegex ? '=~' : '='}"${m.value}"`).join(' ');

/** The section after the alerts, made on first use. */
function silencesSection(alertsSec: HTMLElement): HTMLElement {
  const found = document.getElementById('silences');
  if (found) return found;
  const sec = el('section');
  sec.id = 'silences';
  sec.setAttribute('aria-labelledby', 'silences-h');
  const h = el('h2', null, 'Silences');
  h.id = 'silences-h';
  const msg = el('p', 'warn-msg');
  msg.id = 'act-msg';
  msg.setAttribute('role', 'status');
  sec.append(h, msg);
  alertsSec.after(sec);
  return sec;
}

function silenceItem(s: GettableSilence): HTMLLIElement {
  const li = el('li', 'silence');
  li.setAttribute('data-silence', s.id);
  li.append(
    el('code', null, matchersText(s)),
    text(` ${s.status.state}, by ${s.createdBy}`),
    until(Date.parse(s.endsAt)),
  );
  if (s.comment) li.append(el('br'), text(s.comment));
  if (acting.session?.writer) {
    li.append(
      text(' '),
      button('Expire', () => write('DELETE', `api/v2/silence/${encodeURIComponent(s.id)}`, null)),
    );
  }
  return li;
}

function drawSilences(alertsSec: HTMLElement): void {
  const sec = silencesSection(alertsSec);
  sec.querySelector('ul, p.muted')?.remove();
  const live = (acting.silences ?? []).filter((s) => s.status.state !== 'expired');
  if (!live.length) {
    sec.appendChild(el('p', 'muted', 'No active silences.'));
    return;
  }
  const ul = el('ul', 'silences');
  for (const s of live) ul.appendChild(silenceItem(s));
  sec.appendChild(ul);
}

/** Puts the buttons and notes on the alert cards and redraws the silences list. */
export function drawActions(): void {
  const sec = document.getElementById('alerts');
  if (!sec || !acting.alerts) return;
  sec.querySelectorAll('li.alert').forEach(drawCard);
  drawSilences(sec);
}
