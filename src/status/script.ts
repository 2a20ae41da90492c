// The pages' script, served from /static/status.js like the stylesheet (assets.ts). Plain browser
// JavaScript (no build step): refreshes the page from the JSON API it names in data-api, keeps
// relative times and "updated N s ago" current, and says when updates fail.
import { ACTIONS_JS } from './scriptActions.js';
import { CHARTS_JS } from './scriptCharts.js';
import { WATCH_JS } from './scriptWatch.js';

export const STATUS_JS = `'use strict';
(function () {
${CHARTS_JS}${WATCH_JS}${ACTIONS_JS}  var body = document.body;
  var api = body.getAttribute('data-api');
  var refresh = Math.max(1000, Number(body.getAttribute('data-refresh')) || 5000);
  var skew = 0;
  var lastOk = Number(body.getAttribute('data-generated')) || Date.now();
  var failing = false;
  function now() { return Date.now() + skew; }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function fmt(ms) {
    var s = Math.max(0, ms) / 1000;
    if (s < 90) return Math.round(s) + ' s';
    var t = Math.round(s);
    if (t < 3600) return Math.floor(t / 60) + 'm' + pad(t % 60) + 's';
    if (t < 86400) return Math.floor(t / 3600) + 'h' + pad(Math.floor((t % 3600) / 60)) + 'm';
    return Math.floor(t / 86400) + 'd' + Math.floor((t % 86400) / 3600) + 'h';
  }
  function rel(t) {
    var d = t - now();
    return Math.abs(d) < 1000 ? '(now)' : d > 0 ? '(in ' + fmt(d) + ')' : '(' + fmt(-d) + ' ago)';
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function dash() { return el('span', 'muted', '\\u2014'); }
  function timeEl(ms) {
    var f = document.createDocumentFragment();
    if (ms == null) { f.appendChild(dash()); return f; }
    var iso = new Date(ms).toISOString();
    var today = iso.slice(0, 10) === new Date(now()).toISOString().slice(0, 10);
    var t = el('time', null, (today ? '' : iso.slice(0, 10) + ' ') + iso.slice(11, 19) + ' UTC');
    t.setAttribute('datetime', iso);
    var r = el('span', 'rel', rel(ms));
    r.setAttribute('data-rel-of', String(ms));
    f.appendChild(t); f.appendChild(document.createTextNode(' ')); f.appendChild(r);
    return f;
  }
  // Same as html.ts nextCheckCell: a next check whose time came is "due now", never a time ago.
  function isDue(ms) { return ms - now() < 1000; }
  function nextEl(ms) {
    if (ms == null) return dash();
    var s = el('span', 'next');
    s.setAttribute('data-next-of', String(ms));
    s.appendChild(isDue(ms) ? document.createTextNode('due now') : timeEl(ms));
    return s;
  }
  function num(x) { return x == null ? dash() : document.createTextNode(String(x)); }
  function cell(tr, label, cls, content) {
    var td = el('td', cls);
    td.setAttribute('data-label', label);
    if (content != null) td.appendChild(typeof content === 'string' ? document.createTextNode(content) : content);
    tr.appendChild(td);
    return td;
  }
  function pill(cls, text) { return el('span', 'pill ' + cls, text); }
  function why(text, backingOff) {
    var f = document.createDocumentFragment();
    f.appendChild(text ? document.createTextNode(text) : dash());
    if (backingOff) { f.appendChild(document.createTextNode(' ')); f.appendChild(el('span', 'tag', 'backing off')); }
    return f;
  }
  function nodeRow(r, labels, served) {
    var tr = el('tr', 'row-' + r.status);
    tr.setAttribute('data-node', r.name);
    var th = el('th'); th.setAttribute('scope', 'row');
    var a = el('a', null, r.name); a.setAttribute('href', 'nodes/' + encodeURIComponent(r.name));
    th.appendChild(a); th.appendChild(document.createTextNode(' ')); th.appendChild(el('span', 'net', r.network));
    serves(th, served && served[r.name]);
    tr.appendChild(th);
    cell(tr, labels[1], 'st', pill(r.status, r.label));
    cell(tr, labels[2], 'why', why(r.reason, r.backingOff));
    cell(tr, labels[3], null, timeEl(r.since));
    cell(tr, labels[4], null, timeEl(r.lastCheck));
    cell(tr, labels[5], null, nextEl(r.nextCheck));
    cell(tr, labels[6], 'n', num(r.height));
    cell(tr, labels[7], 'n', num(r.lagBlocks));
    cell(tr, labels[8], null, r.version == null ? dash() : r.version);
    cell(tr, labels[9], 'n', r.uptime24hText);
    cell(tr, labels[10], 'hist', bars(r.recent || [], 30, false));
    return tr;
  }
  function events(list) {
    var box = document.getElementById('events');
    if (!box) return;
    box.textContent = '';
    if (!list.length) { box.appendChild(el('p', 'muted', 'No events yet.')); return; }
    var ol = el('ol', 'events');
    list.forEach(function (e) {
      var li = el('li', 'ev ' + e.kind);
      li.appendChild(timeEl(e.at));
      li.appendChild(document.createTextNode(' ' + e.text));
      ol.appendChild(li);
    });
    box.appendChild(ol);
  }
  function alerts(list) {
    var sec = document.getElementById('alerts');
    if (!sec || list == null) return;
    var old = sec.querySelector('ul, p'); if (old) old.remove();
    if (!list.length) { sec.appendChild(el('p', 'ok-msg', 'No alerts pending or firing.')); return; }
    var ul = el('ul', 'alerts');
    list.forEach(function (a) {
      var li = el('li', 'alert ' + (a.state === 'firing' ? 'firing' : 'pending'));
      li.setAttribute('data-alertname', a.name); li.setAttribute('data-labels', JSON.stringify(a.labels));
      li.appendChild(el('strong', null, a.name)); li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', 'tag', a.state));
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', 'tag', a.severity));
      var where = Object.keys(a.labels)
        .filter(function (k) { return k === 'node' || k === 'network'; })
        .map(function (k) { return k + '=' + a.labels[k]; })
        .join(' ');
      li.appendChild(document.createTextNode(' ' + where));
      if (a.summary) { li.appendChild(el('br')); li.appendChild(document.createTextNode(a.summary)); }
      ul.appendChild(li);
    });
    sec.appendChild(ul);
  }
  // Same cells as the server's networksHtml (fleetPage.ts); the list covers the whole fleet, not only this page.
  function networks(list) {
    var table = document.getElementById('networks');
    if (!table || !list) return;
    var tbody = el('tbody');
    list.forEach(function (n) {
      var tr = el('tr'), th = el('th', null, n.network);
      th.setAttribute('scope', 'row'); tr.appendChild(th);
      [n.answering + '/' + n.total, n.degraded, n.down, n.highestBlock == null ? '\u2014' : n.highestBlock]
        .forEach(function (v) { tr.appendChild(el('td', 'n', String(v))); });
      tbody.appendChild(tr);
    });
    table.replaceChild(tbody, table.tBodies[0]);
  }
  // Same words and links as the server's pager (fleetPage.ts), from the window the refresh returned.
  function pager(data) {
    var navs = document.querySelectorAll('nav.pager');
    if (!navs.length || !data.limit) return;
    var pages = Math.max(1, Math.ceil(data.total / data.limit)), page = Math.floor(data.offset / data.limit) + 1;
    function link(nav, n, text) {
      var a = el('a', null, text);
      a.setAttribute('href', n === 1 ? './' : '?page=' + n);
      nav.appendChild(document.createTextNode(' '));
      nav.appendChild(a);
    }
    navs.forEach(function (nav) {
      nav.textContent = '';
      nav.appendChild(el('span', null, data.nodes.length
        ? 'nodes ' + (data.offset + 1) + '\u2013' + (data.offset + data.nodes.length) + ' of ' + data.total +
          ', worst first (page ' + page + ' of ' + pages + ')'
        : 'no nodes on this page: the fleet has ' + data.total +
          ' (' + pages + ' page' + (pages === 1 ? '' : 's') + ')'));
      if (page > 1) { link(nav, 1, '\u00ab first'); link(nav, Math.min(page - 1, pages), '\u2039 previous'); }
      if (page < pages) { link(nav, page + 1, 'next \u203a'); link(nav, pages, 'last \u00bb'); }
    });
  }
  function fleet(data) {
    pager(data);
    var table = document.getElementById('nodes');
    var labels = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) { return th.textContent; });
    var tbody = el('tbody');
    var served = servedBy(data.watch);
    data.nodes.forEach(function (r) { tbody.appendChild(nodeRow(r, labels, served)); });
    watchTable(data.watch);
    table.replaceChild(tbody, table.tBodies[0]);
    var s = data.summary;
    document.getElementById('summary').textContent = data.headline;
    document.title = (s.down ? s.down + ' down \\u2013 ' : '') + 'Ledger fleet status';
    alerts(data.alerts);
    actDraw(); actLoad();
    networks(data.networks);
    events(data.events);
  }
  function fill(e, content) {
    e.textContent = '';
    e.appendChild(typeof content === 'string' ? document.createTextNode(content) : content);
  }
  function put(id, content) { var e = document.getElementById(id); if (e) fill(e, content); }
  var RESULT = { failing: '\\u25bc failing', ok: '\\u25cf ok', unsupported: '\\u25cb unsupported' };
  function fillProbe(tr, p) {
    var c = tr.cells;
    tr.className = 'probe-' + p.outcome;
    c[0].textContent = p.probe;
    fill(c[1], pill(p.outcome, RESULT[p.outcome] || '? pending'));
    fill(c[2], why(p.text, p.backingOff));
    fill(c[3], p.durationMs == null ? dash() : p.durationMs + ' ms');
    fill(c[4], timeEl(p.lastRun)); fill(c[5], timeEl(p.lastSuccess)); fill(c[6], nextEl(p.nextCheck));
    c[7].textContent = p.supported ? 'yes' : 'no (earlier node build)';
  }
  // Rows are the node's probes by name: a reload that changed the list gets new rows, so a result
  // never shows under another probe's name.
  function probes(list) {
    var table = document.getElementById('probes');
    if (!table) return;
    var rows = table.tBodies[0].rows;
    var same = rows.length === list.length &&
      list.every(function (p, i) { return rows[i].getAttribute('data-probe') === p.probe; });
    if (!same) {
      var labels = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) {
        return th.textContent;
      });
      var tbody = el('tbody');
      list.forEach(function (p) {
        var tr = el('tr'), th = el('th');
        tr.setAttribute('data-probe', p.probe); th.setAttribute('scope', 'row'); tr.appendChild(th);
        for (var i = 1; i < labels.length; i++) cell(tr, labels[i], i === 3 ? 'n' : null);
        tbody.appendChild(tr);
      });
      table.replaceChild(tbody, table.tBodies[0]);
      rows = tbody.rows;
    }
    list.forEach(function (p, i) { fillProbe(rows[i], p); });
  }
  // Badges are images: fetched again (a new query string) only when what they show changed.
  function badges(n, at) {
    var box = document.getElementById('node-badges');
    // Same as nodePage's data-shows: the 24 h words change with the time polled, as the badge's label does.
    var shows = n.status + ' ' + n.uptime24hText;
    if (!box || box.getAttribute('data-shows') === shows) return;
    box.setAttribute('data-shows', shows);
    box.querySelectorAll('img').forEach(function (img) {
      img.setAttribute('src', img.getAttribute('src').split('?')[0] + '?at=' + at);
    });
  }
  // Same facts and words as the server's nodePage (nodePage.ts); the evidence stays as loaded.
  function node(data) {
    var n = data.node;
    var st = document.getElementById('node-status');
    st.className = 'pill ' + n.status; st.textContent = n.label;
    document.title = n.name + ': ' + n.status + ' \\u2013 Ledger fleet status';
    document.getElementById('node-reason').textContent = n.reason || 'answering normally';
    var off = document.createDocumentFragment();
    if (n.backingOff) {
      off.appendChild(document.createTextNode(' '));
      off.appendChild(el('span', 'tag', 'backing off'));
    }
    put('node-backoff', off);
    put('node-since', timeEl(n.since));
    put('node-last', timeEl(n.lastCheck));
    var next = document.createDocumentFragment();
    next.appendChild(nextEl(n.nextCheck));
    if (n.backingOff) next.appendChild(document.createTextNode(' (backing off after failures)'));
    put('node-next', next);
    put('node-network', n.network);
    put('node-version', num(n.version));
    put('node-namespace', num(n.namespace));
    var height = document.createDocumentFragment();
    height.appendChild(num(n.height));
    if (n.lagBlocks != null) {
      height.appendChild(document.createTextNode(' (' + n.lagBlocks + ' behind the highest node)'));
    }
    put('node-height', height);
    put('node-age', n.blockAgeSecs == null ? dash() : n.blockAgeSecs + ' s');
    put('node-peers', num(n.peers));
    var labels = document.createDocumentFragment();
    Object.keys(n.labels).forEach(function (k, i) {
      if (i) labels.appendChild(document.createTextNode(' '));
      labels.appendChild(el('span', 'tag', k + '=' + n.labels[k]));
    });
    put('node-labels', labels.childNodes.length ? labels : dash());
    put('node-uptime', n.uptimeText);
    badges(n, data.generatedAt);
    probes(n.probes);
    var hist = document.querySelector('.hist-big');
    if (hist) { hist.textContent = ''; hist.appendChild(bars(n.recent || [], 100, true)); }
    put('node-spark', spark(n.recent || []));
    events(data.events);
  }
  function tick() {
    document.querySelectorAll('[data-rel-of]').forEach(function (e) {
      e.textContent = rel(Number(e.getAttribute('data-rel-of')));
    });
    document.querySelectorAll('[data-next-of]').forEach(function (e) {
      if (isDue(Number(e.getAttribute('data-next-of'))) && e.textContent !== 'due now') e.textContent = 'due now';
    });
    var u = document.getElementById('updated');
    if (u) {
      u.textContent = (failing ? 'update failed, retrying; last updated ' : 'updated ') + fmt(now() - lastOk) + ' ago';
      u.classList.toggle('stale', failing || now() - lastOk > 3 * refresh);
    }
  }
  function poll() {
    fetch(api, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
      .then(function (data) {
        skew = data.generatedAt - Date.now();
        lastOk = data.generatedAt;
        failing = false;
        if (data.nodes) fleet(data); else if (data.node) node(data);
      })
      .catch(function () { failing = true; })
      .then(function () { tick(); setTimeout(poll, refresh); });
  }
  tick();
  setInterval(tick, 1000);
  actLoad();
  if (api) setTimeout(poll, refresh);
})();
`;
