// The page script's part for acting on alerts (included in status.js by script.ts; fleet page
// only): each firing alert card offers "Acknowledge", "Silence 1h" and "Silence 4h" to a signed-in
// writer (GET /api/v1/session), and a silences list offers "Expire"; everyone sees on a silenced
// alert who silenced it, until when and why. Writes are same-origin and carry the session's write
// token; a 403 fetches a new token once and retries. Text from alerts and silences is inserted as
// text, never as HTML. Function declarations only (hoisted in the script's closure, which defines
// el and timeEl).
export const ACTIONS_JS = `  var acting = { session: null, alerts: null, silences: null };
  function actGet(path) {
    return fetch(path, { cache: 'no-store', headers: { accept: 'application/json' } }).then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.json();
    });
  }
  function actSession() {
    return actGet('api/v1/session').then(function (s) { acting.session = s; return s; },
      function () { acting.session = { writer: false }; return acting.session; });
  }
  // One write; on a 403 a new token is fetched once and the write retried.
  function actWrite(method, path, body, retried) {
    var s = acting.session || {};
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (s.tokenHeader) headers[s.tokenHeader] = s.writeToken;
    return fetch(path, { method: method, headers: headers, body: body == null ? undefined : JSON.stringify(body) })
      .then(function (res) {
        if (res.status === 403 && !retried) {
          return actSession().then(function () { return actWrite(method, path, body, true); });
        }
        if (!res.ok) return res.text().then(function (t) { throw new Error('HTTP ' + res.status + ': ' + t); });
        return res;
      });
  }
  function actLoad() {
    if (!document.getElementById('alerts')) return Promise.resolve();
    var first = acting.session ? Promise.resolve(acting.session) : actSession();
    return first.then(function () {
      return Promise.all([actGet('api/v2/alerts'), actGet('api/v2/silences')]);
    }).then(function (r) { acting.alerts = r[0]; acting.silences = r[1]; actDraw(); }, function () {});
  }
  function actCardLabels(li) {
    try { return JSON.parse(li.getAttribute('data-labels') || '{}'); } catch (e) { return {}; }
  }
  // The /api/v2/alerts entry a card shows: the same alert name and every label the card carries.
  function actFind(li) {
    var name = li.getAttribute('data-alertname'), labels = actCardLabels(li);
    return (acting.alerts || []).filter(function (a) {
      return a.labels.alertname === name &&
        Object.keys(labels).every(function (k) { return a.labels[k] === labels[k]; });
    })[0];
  }
  function actSilence(id) {
    return (acting.silences || []).filter(function (s) { return s.id === id; })[0];
  }
  function actUntil(ms) {
    var f = document.createDocumentFragment();
    f.appendChild(document.createTextNode(' until '));
    f.appendChild(timeEl(ms));
    return f;
  }
  function actButton(text, onClick) {
    var b = el('button', 'act', text);
    b.setAttribute('type', 'button');
    // Disabled while its write runs (no double silence); a redraw replaces it with a fresh button.
    b.addEventListener('click', function () {
      b.disabled = true;
      actSay('');
      onClick().then(function () { return actLoad(); }, function (e) { actSay(String(e.message || e)); })
        .then(function () { b.disabled = false; });
    });
    return b;
  }
  function actSay(text) {
    var p = document.getElementById('act-msg');
    if (p) p.textContent = text;
  }
  function actSilenceFor(a, hours) {
    var start = Date.now();
    return actWrite('POST', 'api/v2/silences', {
      matchers: Object.keys(a.labels).map(function (k) {
        return { name: k, value: a.labels[k], isRegex: false, isEqual: true };
      }),
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(start + hours * 3600000).toISOString(),
      createdBy: acting.session.user,
      comment: 'silenced ' + hours + 'h from the status page',
    });
  }
  function actAck(a) {
    return actWrite('POST', 'api/v1/alerts/ack', {
      fingerprint: a.fingerprint, createdBy: acting.session.user, comment: 'acknowledged on the status page',
    });
  }
  function actNote(a) {
    var box = el('div', 'silenced-note');
    a.status.silencedBy.forEach(function (id) {
      var s = actSilence(id);
      var line = el('span', 'silenced-by');
      line.appendChild(el('span', 'tag', 'silenced'));
      line.appendChild(document.createTextNode(' by ' + (s ? s.createdBy : 'silence ' + id)));
      if (s) line.appendChild(actUntil(Date.parse(s.endsAt)));
      if (s && s.comment) line.appendChild(document.createTextNode(': ' + s.comment));
      box.appendChild(line);
    });
    return box;
  }
  function actCard(li) {
    var old = li.querySelector('.acts'); if (old) old.remove();
    var a = actFind(li);
    if (!a) return;
    var box = el('div', 'acts');
    var silenced = a.status.silencedBy && a.status.silencedBy.length;
    if (silenced) box.appendChild(actNote(a));
    else if (acting.session && acting.session.writer && li.classList.contains('firing')) {
      box.appendChild(actButton('Acknowledge', function () { return actAck(a); }));
      box.appendChild(actButton('Silence 1h', function () { return actSilenceFor(a, 1); }));
      box.appendChild(actButton('Silence 4h', function () { return actSilenceFor(a, 4); }));
    }
    if (box.childNodes.length) li.appendChild(box);
  }
  function actMatchers(s) {
    return s.matchers.map(function (m) {
      return m.name + (m.isEqual === false ? '!' : '') + (m.isRegex ? '=~' : '=') + '"' + m.value + '"';
    }).join(' ');
  }
  function actList() {
    var alertsSec = document.getElementById('alerts');
    var sec = document.getElementById('silences');
    if (!sec) {
      sec = el('section');
      sec.id = 'silences';
      sec.setAttribute('aria-labelledby', 'silences-h');
      var h = el('h2', null, 'Silences'); h.id = 'silences-h';
      sec.appendChild(h);
      var msg = el('p', 'warn-msg'); msg.id = 'act-msg'; msg.setAttribute('role', 'status');
      sec.appendChild(msg);
      alertsSec.parentNode.insertBefore(sec, alertsSec.nextSibling);
    }
    var old = sec.querySelector('ul, p.muted'); if (old) old.remove();
    var live = (acting.silences || []).filter(function (s) { return s.status.state !== 'expired'; });
    if (!live.length) { sec.appendChild(el('p', 'muted', 'No active silences.')); return; }
    var ul = el('ul', 'silences');
    live.forEach(function (s) {
      var li = el('li', 'silence');
      li.setAttribute('data-silence', s.id);
      li.appendChild(el('code', null, actMatchers(s)));
      li.appendChild(document.createTextNode(' ' + s.status.state + ', by ' + s.createdBy));
      li.appendChild(actUntil(Date.parse(s.endsAt)));
      if (s.comment) { li.appendChild(el('br')); li.appendChild(document.createTextNode(s.comment)); }
      if (acting.session && acting.session.writer) {
        li.appendChild(document.createTextNode(' '));
        li.appendChild(actButton('Expire', function () {
          return actWrite('DELETE', 'api/v2/silence/' + encodeURIComponent(s.id), null);
        }));
      }
      ul.appendChild(li);
    });
    sec.appendChild(ul);
  }
  function actDraw() {
    var sec = document.getElementById('alerts');
    if (!sec || !acting.alerts) return;
    sec.querySelectorAll('li.alert').forEach(actCard);
    actList();
  }
`;
