// The page script's part for watched entries (included in status.js by script.ts): the same
// rows as watchSection.ts renders, refreshed from the fleet JSON's `watch`, and the links from
// the node rows to the entries each node served. Function declarations only (hoisted in the
// script's closure, which defines el, cell, pill, dash and timeEl).
export const WATCH_JS = `  function watchTable(list) {
    var table = document.getElementById('watched');
    if (!table || !list) return;
    var labels = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) { return th.textContent; });
    var tbody = el('tbody');
    list.forEach(function (w) {
      var tr = el('tr', 'row-' + w.status);
      tr.id = w.anchor;
      var th = el('th');
      th.setAttribute('scope', 'row');
      th.appendChild(document.createTextNode(w.name + ' '));
      th.appendChild(el('span', 'net', w.network));
      th.appendChild(document.createTextNode(' '));
      th.appendChild(el('span', 'tag', w.kind));
      th.appendChild(el('br'));
      var shown = w.address.length > 16 ? w.address.slice(0, 8) + '\\u2026' + w.address.slice(-6) : w.address;
      var code = el('code', 'addr', shown);
      code.setAttribute('title', w.address);
      th.appendChild(code);
      tr.appendChild(th);
      cell(tr, labels[1], 'st', pill(w.status, w.label));
      cell(tr, labels[2], 'why', w.text);
      var via = dash();
      if (w.servedBy) {
        via = el('a', null, w.servedBy);
        via.setAttribute('href', 'nodes/' + encodeURIComponent(w.servedBy));
      }
      cell(tr, labels[3], null, via);
      cell(tr, labels[4], null, timeEl(w.lastRead));
      tbody.appendChild(tr);
    });
    table.replaceChild(tbody, table.tBodies[0]);
  }
  function servedBy(list) {
    var out = {};
    (list || []).forEach(function (w) { if (w.servedBy) (out[w.servedBy] = out[w.servedBy] || []).push(w); });
    return out;
  }
  function serves(th, list) {
    if (!list || !list.length) return;
    var s = el('span', 'serves', 'serves');
    list.forEach(function (w) {
      var a = el('a', 'tag', w.name);
      a.setAttribute('href', '#' + w.anchor);
      s.appendChild(document.createTextNode(' '));
      s.appendChild(a);
    });
    th.appendChild(document.createTextNode(' '));
    th.appendChild(s);
  }
`;
