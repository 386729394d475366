// The HTML report's inline style and script (no network: everything the page needs is here).
#include "common/report/html_report.h"
#include "common/report/html_script_common.h"

namespace msit {

const char* const kHtmlStyle = R"CSS(
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:16px;margin:0 0 8px}
h2{font-size:14px;margin:14px 0 4px}
#controls select{margin-right:12px}
#summary{margin:8px 0}
#coverage{margin:8px 0;padding:4px 8px;border-left:3px solid #f39c12;background:#fff8e6}
#coverage ul{margin:4px 0;padding-left:20px}
.plot{display:block;margin:4px 0;background:#fafafa;border:1px solid #ddd}
.plot text{font-size:10px;fill:#555}
.plot .title{font-size:12px;fill:#222}
.grid{stroke:#e4e4e4}
.trend{fill:none;stroke:#9ab;stroke-width:1}
.pt{fill:#4a7fb5;stroke:none;cursor:pointer}
.pt.inconclusive,.pt.none{fill:none;stroke:#999}
.pt.skip{fill:#bbb}.pt.error{fill:#000}
.pt.jump{fill:#f39c12}
.pt.fail{fill:#d62728}
.pt.dim{opacity:.08}
.mark{fill:none;stroke:#d62728;stroke-width:2}
.marklabel{fill:#d62728!important;font-size:11px!important}
#detail{white-space:pre-wrap;font:12px monospace;background:#f4f4f4;padding:6px;min-height:40px}
#tip{position:fixed;display:none;pointer-events:none;background:#fff;border:1px solid #888;padding:4px;font:11px monospace;white-space:pre}
table{border-collapse:collapse;margin-top:8px}
th,td{border:1px solid #ddd;padding:2px 6px;font-size:12px;text-align:right}
th{cursor:pointer;background:#eee}
td.t{text-align:left}
tr.fail td{background:#fde0e0}tr.jump td{background:#fdf0d8}tr.first td{background:#f9c6c6}
)CSS";

namespace {
constexpr auto kHtmlScriptText = html::join_literals(R"JS(
(function () {
  'use strict';
  var rows = JSON.parse(document.getElementById('data').textContent);
  var body = document.body, NS = 'http://www.w3.org/2000/svg';
  function key(r) { return (r.rank === null ? '' : 'rank ' + r.rank + ' ') + 'token ' + r.token; }
  var series = {}, order = [], types = {};
  rows.forEach(function (r) {
    var k = key(r);
    if (!series[k]) { series[k] = []; order.push(k); }
    series[k].push(r);
    if (r.type) types[r.type] = (types[r.type] || 0) + 1;
  });
  var first = null;
  rows.some(function (r) { if (r.divergence === 'first') { first = r; return true; } return false; });
  var state = { series: first ? key(first) : order[0], type: '', sort: 'i', desc: false, pinned: null };
  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
)JS",
                                                     html::kScriptHAndFmt, R"JS(  function label(r) {
    return r.name + (r.type ? ' (' + r.type + ')' : '') + (r.tensor ? ' ' + r.tensor : '') + (r.vs ? ' vs ' + r.vs : '');
  }
  function details(r) {
    var keys = ['name', 'type', 'tensor', 'rank', 'token', 'i', 'mode', 'verdict', 'divergence', 'error_jump',
                'margin', 'detection_floor', 'error_level', 'cosine', 'red', 'max_abs', 'max_rel', 'mean_abs', 'mean_rel', 'kl', 'max_stat_abs',
                'min_stat_abs', 'my_dtype', 'golden_dtype', 'my_shape', 'golden_shape', 'my', 'golden', 'reason', 'note'];
    return keys.filter(function (k) { return r[k] !== null && r[k] !== ''; })
               .map(function (k) { return k + ': ' + (k === 'cosine' ? String(r[k]) : fmt(r[k])); }).join('\n');
  }
  function cls(r) {
    var c = 'pt ' + (r.verdict || 'none');
    if (r.divergence) c += ' jump';
    if (r.verdict === 'fail') c += ' fail';
    if (state.type && r.type !== state.type) c += ' dim';
    return c;
  }
  var tip = document.getElementById('tip'), detail = document.getElementById('detail');
  // One set of listeners per plot or table (not per point: a token has thousands of rows):
  // the element under the pointer names its row by data-i.
  function hook(node, list) {
    function row(ev) { var i = ev.target.getAttribute ? ev.target.getAttribute('data-i') : null; return i === null ? null : list[+i]; }
    node.addEventListener('mousemove', function (ev) {
      var r = row(ev);
      if (!r) { tip.style.display = 'none'; return; }
      tip.textContent = details(r);
      tip.style.display = 'block';
      tip.style.left = (ev.clientX + 12) + 'px';
      tip.style.top = Math.max(0, ev.clientY - 40) + 'px';
    });
    node.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    node.addEventListener('click', function (ev) { var r = row(ev); if (r) { state.pinned = r; detail.textContent = details(r); } });
  }
  // One log-scale plot of value(r) over the rows of a series: one point per row; rows without
  // the value sit on the bottom edge as hollow points.
  function plot(parent, title, value, list, id) {
    var W = 1100, H = 210, L = 56, R = 12, T = 18, B = 26;
    var svg = el('svg', { width: W, height: H, 'class': 'plot', id: id }, parent);
    hook(svg, list);
    el('text', { x: L, y: 12, 'class': 'title' }, svg, title);
    var lo = Infinity, hi = -Infinity;
    list.forEach(function (r) {
      var v = value(r);
      if (v !== null && v > 0 && isFinite(v)) { lo = Math.min(lo, Math.log10(v)); hi = Math.max(hi, Math.log10(v)); }
    });
    if (!isFinite(lo)) { lo = -8; hi = 0; }
    lo = Math.floor(Math.max(lo, -12)) - (hi - lo < 1 ? 1 : 0);
    hi = Math.ceil(hi);
    if (hi <= lo) hi = lo + 1;
    var n = list.length;
    function x(i) { return L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1)); }
    function y(v) {
      if (v === null || !isFinite(v)) return H - B + 8;
      var lv = v > 0 ? Math.max(Math.log10(v), lo) : lo;
      return T + (hi - lv) * (H - T - B) / (hi - lo);
    }
    for (var d = lo; d <= hi; ++d) {
      el('line', { x1: L, x2: W - R, y1: y(Math.pow(10, d)), y2: y(Math.pow(10, d)), 'class': 'grid' }, svg);
      el('text', { x: 4, y: y(Math.pow(10, d)) + 3 }, svg, '1e' + d);
    }
    el('text', { x: 4, y: H - B + 11 }, svg, 'none');
    el('text', { x: W - 150, y: H - 4 }, svg, 'execution order \u2192');
    var pts = [];
    list.forEach(function (r, i) { var v = value(r); if (v !== null && isFinite(v)) pts.push(x(i) + ',' + y(v)); });
    el('polyline', { points: pts.join(' '), 'class': 'trend' }, svg);
    list.forEach(function (r, i) {
      el('circle', { cx: x(i), cy: y(value(r)), r: r.divergence || r.verdict === 'fail' ? 4 : 2.6,
                     'class': cls(r), 'data-i': i }, svg);
      if (r.divergence === 'first') {
        el('circle', { cx: x(i), cy: y(value(r)), r: 9, 'class': 'mark', 'data-label': label(r), 'data-i': i }, svg);
        el('text', { x: Math.min(x(i) + 10, W - 260), y: Math.max(y(value(r)) - 8, 28), 'class': 'marklabel' }, svg,
           'first divergence: ' + label(r) + (r.error_jump ? ' (' + fmt(r.error_jump) + 'x)' : ''));
      }
    });
    return svg;
  }
  function table(list) {
    var box = document.getElementById('table');
    box.textContent = '';
    var cols = [['i', '#'], ['name', 'op'], ['type', 'type'], ['tensor', 'tensor'], ['mode', 'mode'],
                ['verdict', 'verdict'], ['divergence', 'divergence'], ['error_jump', 'jump'], ['margin', 'margin'],
                ['cosine', 'cosine'],
                ['red', 'RED'], ['max_abs', 'max abs err'], ['max_rel', 'max rel err'], ['kl', 'KL'],
                ['max_stat_abs', 'max stat abs err']];
    var shown = list.filter(function (r) { return !state.type || r.type === state.type; });
    shown.sort(function (a, b) {
      var u = a[state.sort], v = b[state.sort];
      if (u === v) return a.i - b.i;
      if (u === null || u === '') return 1;
      if (v === null || v === '') return -1;
      var c = u < v ? -1 : 1;
      return state.desc ? -c : c;
    });
    var t = h('table', undefined, box), head = h('tr', undefined, h('thead', undefined, t));
    cols.forEach(function (c) {
      var th = h('th', c[1] + (state.sort === c[0] ? (state.desc ? ' \u25bc' : ' \u25b2') : ''), head);
      th.addEventListener('click', function () {
        state.desc = state.sort === c[0] ? !state.desc : false;
        state.sort = c[0];
        table(list);
      });
    });
    var tb = h('tbody', undefined, t), limit = 1000;
    hook(tb, shown);
    shown.slice(0, limit).forEach(function (r, k) {
      var tr = h('tr', undefined, tb);
      tr.setAttribute('data-i', k);
      tr.className = r.divergence === 'first' ? 'first' : r.verdict === 'fail' ? 'fail' : r.divergence ? 'jump' : '';
      cols.forEach(function (c) {
        var v = r[c[0]], td = h('td', c[0] === 'cosine' && v !== null ? String(v) : fmt(v), tr);
        td.setAttribute('data-i', k);
        if (typeof v !== 'number') td.className = 't';
      });
    });
    if (shown.length > limit) h('p', (shown.length - limit) + ' more rows: sort to bring them up, or see the CSV', box);
  }
  function draw() {
    var list = series[state.series] || [];
    var plots = document.getElementById('plots');
    plots.textContent = '';
    plot(plots, 'relative Euclidean distance (RED), log scale', function (r) { return r.red; }, list, 'red-plot');
    plot(plots, '1 - cosine similarity, log scale', function (r) { return r.cosine === null ? null : 1 - r.cosine; },
         list, 'cos-plot');
    table(list);
    var f = list.filter(function (r) { return r.divergence === 'first'; })[0];
    var sus = list.filter(function (r) { return r.divergence === 'suspect'; })[0];
    var fails = list.filter(function (r) { return r.verdict === 'fail'; }).length;
    // The detection floor of the shown rows: the largest error level an output could have had
    // unnamed ("none above X", docs/compare.md "Margin, suspects and the detection floor").
    var floor = list.reduce(function (m, r) { return r.detection_floor > m ? r.detection_floor : m; }, 0);
    var s = document.getElementById('summary');
    s.textContent = state.series + ': ' + list.length + ' rows; ' + fails + ' fail the thresholds; first divergence: ' +
                    (f ? label(f) + (f.error_jump ? ', error ' + fmt(f.error_jump) + 'x the error before it' : '') +
                             (f.margin ? ', margin ' + fmt(f.margin) : '')
                       : floor > 0 ? 'none above ' + fmt(floor) : 'not judged') +
                    (f && f.recompute ? '; recomputed: ' + f.recompute.join('; ') : '') +
                    (sus ? '; suspect (thin margin): ' + label(sus) + ', margin ' + fmt(sus.margin) : '');
    var mark = document.querySelector('#red-plot .mark');
    body.setAttribute('data-series', state.series);
    body.setAttribute('data-rows', String(list.length));
    body.setAttribute('data-points', String(document.querySelectorAll('#red-plot circle.pt').length));
    body.setAttribute('data-cos-points', String(document.querySelectorAll('#cos-plot circle.pt').length));
    body.setAttribute('data-first', f ? label(f) : '');
    body.setAttribute('data-suspect', sus ? label(sus) : '');
    body.setAttribute('data-floor', floor > 0 ? String(floor) : '');
    body.setAttribute('data-marked', mark ? mark.getAttribute('data-label') : '');
    body.setAttribute('data-fail-points', String(document.querySelectorAll('#red-plot circle.pt.fail').length));
  }
  var controls = document.getElementById('controls');
  h('span', 'rank / token: ', controls);
  var sel = h('select', undefined, controls);
  sel.id = 'series';
  order.forEach(function (k) {
    var o = h('option', k + ' (' + series[k].length + ' rows' +
              (series[k].some(function (r) { return r.divergence === 'first'; }) ? ', divergence' : '') + ')', sel);
    o.value = k;
    if (k === state.series) o.selected = true;
  });
  sel.addEventListener('change', function () { state.series = sel.value; draw(); });
  h('span', 'op type: ', controls);
  var tsel = h('select', undefined, controls);
  tsel.id = 'type';
  h('option', 'all', tsel).value = '';
  Object.keys(types).sort().forEach(function (t) { h('option', t + ' (' + types[t] + ')', tsel).value = t; });
  tsel.addEventListener('change', function () { state.type = tsel.value; draw(); });
  draw();
  // Milliseconds from the start of navigation to here: the page's load time without the browser's start.
  body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  body.setAttribute('data-ready', '1');
})();
)JS");
}  // namespace

const char* const kHtmlScript = kHtmlScriptText.data();

}  // namespace msit
