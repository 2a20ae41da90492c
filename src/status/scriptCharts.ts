// The page script's charts (script.ts takes them in): the same drawings as charts.ts, from the
// JSON refresh. Plain browser JavaScript, inside the script's function.
export const CHARTS_JS = `
  var SVG = 'http://www.w3.org/2000/svg';
  var AXIS_ROOM = 14, TWO_LABELS = 130, SPARK = { left: 48, width: 290, height: 40 };
  function hms(ms) { return new Date(ms).toISOString().slice(11, 19); }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function svgText(x, y, anchor, text) {
    var t = svgEl('text', { x: x, y: y, 'text-anchor': anchor });
    t.textContent = text;
    return t;
  }
  // Same as charts.ts timeAxis: first and last poll's times, or only the last when they would touch.
  function timeAxis(svg, x0, x1, y, first, last) {
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: x0, y1: y, x2: x1, y2: y }));
    if (x1 - x0 >= TWO_LABELS && first !== last) svg.appendChild(svgText(x0, y + AXIS_ROOM - 2, 'start', hms(first)));
    svg.appendChild(svgText(x1, y + AXIS_ROOM - 2, 'end', hms(last) + ' UTC'));
  }
  function bars(polls, slots, axis) {
    var H = { up: 6, degraded: 12, down: 18 }, c = { up: 0, degraded: 0, down: 0 };
    var w = axis ? 3 : 4, pitch = w + 1, width = slots * pitch;
    var height = axis ? 18 + AXIS_ROOM + 2 : 18, start = slots - polls.length;
    var svg = svgEl('svg', {
      'class': axis ? 'bars axised' : 'bars', viewBox: '0 0 ' + width + ' ' + height,
      width: width, height: height, role: 'img'
    });
    polls.forEach(function (p, i) {
      c[p.outcome]++;
      var h = H[p.outcome] || 18;
      var r = svgEl('rect', { 'class': 'bar ' + p.outcome, x: (start + i) * pitch, y: 18 - h, width: w, height: h });
      var t = document.createElementNS(SVG, 'title');
      t.textContent = new Date(p.at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC: ' + p.outcome +
        (p.reason ? ': ' + p.reason : '') + ' (' + p.durationMs + ' ms)';
      r.appendChild(t); svg.appendChild(r);
    });
    if (axis && polls.length) timeAxis(svg, start * pitch, width, 19, polls[0].at, polls[polls.length - 1].at);
    var label = polls.length
      ? 'last ' + polls.length + ' polls: ' + c.up + ' up, ' + c.degraded + ' degraded, ' + c.down + ' down'
      : 'no polls yet';
    svg.setAttribute('aria-label', label);
    return svg;
  }
  function spark(polls) {
    var f = document.createDocumentFragment();
    if (polls.length < 2) {
      var p = document.createElement('p');
      p.className = 'muted';
      p.textContent = 'Not enough polls for a response-time chart yet.';
      f.appendChild(p);
      return f;
    }
    var L = SPARK.left, W = SPARK.width, H = SPARK.height, ds = polls.map(function (p) { return p.durationMs; });
    var max = Math.max.apply(null, [1].concat(ds));
    var t0 = polls[0].at, tn = polls[polls.length - 1].at, span = Math.max(1, tn - t0);
    var label = 'response time of the last ' + ds.length + ' polls: min ' + Math.min.apply(null, ds) + ' ms, max ' +
      max + ' ms, latest ' + ds[ds.length - 1] + ' ms';
    var svgW = L + W + 2, svgH = H + AXIS_ROOM + 2;
    var svg = svgEl('svg', {
      'class': 'spark', viewBox: '0 0 ' + svgW + ' ' + svgH, width: svgW, height: svgH, role: 'img', 'aria-label': label
    });
    var t = document.createElementNS(SVG, 'title'); t.textContent = label; svg.appendChild(t);
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: L, y1: 0, x2: L, y2: H }));
    svg.appendChild(svgText(L - 4, 9, 'end', max + ' ms')); svg.appendChild(svgText(L - 4, H, 'end', '0 ms'));
    timeAxis(svg, L, L + W, H, t0, tn);
    var pts = polls.map(function (p) {
      return (L + ((p.at - t0) / span) * W).toFixed(1) + ',' + (H - 2 - (p.durationMs / max) * (H - 4)).toFixed(1);
    }).join(' ');
    svg.appendChild(svgEl('polyline', { points: pts, fill: 'none', 'stroke-width': '1.5' }));
    var words = document.createElement('p'); words.className = 'muted small'; words.textContent = label;
    f.appendChild(svg); f.appendChild(words);
    return f;
  }
`;
