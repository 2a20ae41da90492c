// The pages' stylesheet, served from /static/ by the exporter itself like their script
// (script.ts, bundled from browser/): no external assets, as the page must work on an air-gapped
// network; the CSP allows only these files.

/** A dot in a circle: the tab icon (served as SVG, so the browser never asks for /favicon.ico). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" ' +
  'fill="#1a7f37"/><circle cx="8" cy="8" r="3" fill="#fff"/></svg>';

export const STATUS_CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;
--head:#f6f8fa;--link:#0550ae;
--up-bg:#dafbe1;--up-fg:#116329;--deg-bg:#fff8c5;--deg-fg:#6f4400;--down-bg:#ffebe9;--down-fg:#a40e26;
--unk-bg:#eaeef2;--unk-fg:#424a53;
--bar-up:#2da44e;--bar-deg:#bf8700;--bar-down:#cf222e;--spark:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--head:#161b22;
--link:#79c0ff;
--up-bg:#12261e;--up-fg:#56d364;--deg-bg:#272115;--deg-fg:#e3b341;--down-bg:#2d1214;--down-fg:#ff7b72;
--unk-bg:#21262d;--unk-fg:#b1bac4;
--bar-up:#3fb950;--bar-deg:#d29922;--bar-down:#f85149;--spark:#58a6ff}}
*{box-sizing:border-box}
body{margin:0;padding:1rem 1.25rem;background:var(--bg);color:var(--fg);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.4rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .3rem}
.meta{margin:.2rem 0;color:var(--muted)}.meta strong{color:var(--fg)}
.muted{color:var(--muted)}.small{font-size:.85em}
#updated.stale{color:var(--down-fg);font-weight:600}
table{border-collapse:collapse;width:100%}
th,td{padding:.35rem .5rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--head);font-weight:600;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th[scope=row] a{white-space:nowrap}
#networks{width:auto}
/* Long words wrap where they have a break point (<wbr>, html.ts breakable); mid-word only when none fits. */
.why,li.alert,ol.events li{overflow-wrap:break-word}
.net{display:block;color:var(--muted);font-weight:normal;font-size:.85em}
.pill{display:inline-block;padding:0 .45em;border-radius:1em;font-weight:600;white-space:nowrap}
.pill.up,.pill.ok{background:var(--up-bg);color:var(--up-fg)}
.pill.degraded,.pill.pending{background:var(--deg-bg);color:var(--deg-fg)}
.pill.down,.pill.failing{background:var(--down-bg);color:var(--down-fg)}
.pill.unknown,.pill.unsupported{background:var(--unk-bg);color:var(--unk-fg)}
.tag{display:inline-block;padding:0 .4em;border:1px solid var(--line);border-radius:.3em;font-size:.85em;
white-space:nowrap}
code.addr{font-size:.8em;color:var(--muted);font-weight:normal}.serves{display:block;font-weight:normal;font-size:.85em}
tr.row-down th,tr.row-down td{background:var(--down-bg)}
.rel{color:var(--muted);font-size:.85em;white-space:nowrap}
time{white-space:nowrap}
svg.bars .bar.up{fill:var(--bar-up)}svg.bars .bar.degraded{fill:var(--bar-deg)}svg.bars .bar.down{fill:var(--bar-down)}
svg.spark polyline{stroke:var(--spark)}
.hist-big svg,svg.spark{max-width:100%;height:auto}
svg text{fill:var(--muted);font-size:10px;font-family:inherit}svg line.axis{stroke:var(--line)}
ul.alerts{list-style:none;padding:0}li.alert{padding:.4rem .6rem;margin:.3rem 0;border-left:4px solid var(--bar-deg);
background:var(--deg-bg)}
li.alert.firing{border-color:var(--bar-down);background:var(--down-bg)}
li.alert-group{margin:.3rem 0}li.alert-group ul.alerts{margin:0 0 0 .6rem}
li.alert-group summary{padding:.4rem .6rem;border-left:4px solid var(--bar-deg);background:var(--deg-bg);cursor:pointer;
font-weight:600}
li.alert-group.firing summary{border-color:var(--bar-down);background:var(--down-bg)}
.acts{margin-top:.3rem;display:flex;flex-wrap:wrap;gap:.3rem .5rem;align-items:center}
button.act{font:inherit;font-size:.9em;padding:.25rem .7rem;min-height:2rem;border:1px solid var(--line);
border-radius:.3rem;background:var(--bg);color:var(--fg);cursor:pointer}
.silenced-note,.silenced-by{display:block;overflow-wrap:break-word}
ul.silences{list-style:none;padding:0}li.silence{padding:.4rem .6rem;margin:.3rem 0;border-left:4px solid var(--line);
background:var(--head);overflow-wrap:break-word}
.ok-msg{color:var(--up-fg)}.warn-msg{color:var(--down-fg)}
ol.events{list-style:none;padding-left:0}ol.events li{margin:.15rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--head);padding:.5rem;border-radius:.3rem;
font-size:.85em;max-height:12rem;overflow:auto}
ol.evidence-list{padding-left:1.2rem}
footer{margin-top:2rem;color:var(--muted)}
.pager{display:flex;flex-wrap:wrap;gap:.2rem 1rem;margin:.5rem 0;color:var(--muted)}
@media (max-width:760px){
body{padding:.6rem}
thead th{white-space:normal}
#networks{width:100%;font-size:.9em}#networks th,#networks td{padding:.3rem .25rem}
#networks tbody th{overflow-wrap:anywhere}
table.nodes thead,#probes thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.nodes tbody,#probes tbody{display:block}
table.nodes tr,#probes tr{display:grid;grid-template-columns:1fr 1fr;border:1px solid var(--line);border-radius:.4rem;
margin:.5rem 0;padding:.3rem .2rem}
table.nodes th,table.nodes td,#probes th,#probes td{display:block;border:0;padding:.15rem .5rem;text-align:left;
min-width:0}
table.nodes td.n,#probes td.n{text-align:left}
table.nodes th,table.nodes td.why,table.nodes td.hist,#probes th,#probes td:nth-child(3){grid-column:1/-1}
table.nodes td::before,#probes td::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
table.nodes tr.row-down{background:var(--down-bg)}
table.nodes td time,#probes td time{white-space:normal}
table.nodes th a{font-size:1.1em;white-space:normal;overflow-wrap:break-word}
td.hist svg{max-width:100%;height:auto}
dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.3rem}
}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;
