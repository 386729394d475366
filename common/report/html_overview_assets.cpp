// The HTML overview page's script (html_pages.h): tables of the first divergences, the tokens,
// the op types and the worst rows, each sortable and cut to a few hundred shown rows, with links
// to the token pages. No network: everything the page needs is here.
#include "common/report/html_report.h"
#include "common/report/html_script_common.h"

namespace msit {

namespace {
constexpr auto kHtmlOverviewScriptText = html::join_literals(R"JS(
(function () {
  'use strict';
  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  var tokens = data('tokens-data'), types = data('types-data'), worst = data('worst-data'), totals = data('totals-data');
  var body = document.body;
)JS",
                                                             html::kScriptHAndFmt, R"JS(  function label(r) {
    return r ? r.name + (r.type ? ' (' + r.type + ')' : '') + (r.tensor ? ' ' + r.tensor : '') + (r.vs ? ' vs ' + r.vs : '')
             : '';
  }
  function where(e) { return (e.rank === null ? '' : 'rank ' + e.rank + ' ') + 'token ' + e.token; }
  // A sortable table of list; cols: [header, value(row), link(row) or null]. Shows `limit` rows.
  function table(id, title, note, cols, list, limit, sortBy, desc) {
    var box = document.getElementById(id), state = { by: sortBy, desc: desc };
    function draw() {
      box.textContent = '';
      h('h2', title + ' (' + list.length + ')', box);
      if (note) h('p', note, box);
      var shown = list.slice();
      if (state.by !== null) {
        var f = cols[state.by][1];
        shown.sort(function (a, b) {
          var u = f(a), v = f(b);
          if (u === v) return 0;
          if (u === null || u === '') return 1;
          if (v === null || v === '') return -1;
          var c = u < v ? -1 : 1;
          return state.desc ? -c : c;
        });
      }
      var t = h('table', undefined, box), head = h('tr', undefined, h('thead', undefined, t));
      cols.forEach(function (c, k) {
        var th = h('th', c[0] + (state.by === k ? (state.desc ? ' \u25bc' : ' \u25b2') : ''), head);
        th.addEventListener('click', function () { state.desc = state.by === k ? !state.desc : true; state.by = k; draw(); });
      });
      var tb = h('tbody', undefined, t);
      shown.slice(0, limit).forEach(function (r) {
        var tr = h('tr', undefined, tb);
        cols.forEach(function (c) {
          var v = c[1](r), td = h('td', undefined, tr), href = c[2] ? c[2](r) : null;
          if (typeof v !== 'number') td.className = 't';
          if (href) { var a = h('a', fmt(v), td); a.href = href; a.className = 'token'; } else td.textContent = fmt(v);
        });
      });
      if (shown.length > limit) h('p', (shown.length - limit) + ' more: sort to bring them up, or see the CSV', box);
    }
    draw();
  }
  function href(e) { return e.href; }
  var diverged = tokens.filter(function (e) { return e.first; });
  var fails = tokens.reduce(function (n, e) { return n + e.fails; }, 0);
  var floor = tokens.reduce(function (m, e) { return e.floor > m ? e.floor : m; }, 0);
  var first = diverged[0], s = document.getElementById('summary');
  h('span', totals.rows + ' rows in ' + tokens.length + ' tokens; ' + fails + ' fail the thresholds; ' +
    diverged.length + ' tokens with a first divergence; the first: ', s);
  if (first) {
    var a = h('a', where(first) + ': ' + label(first.first), s);
    a.href = first.href;
    a.id = 'first-link';
    if (first.first.error_jump) h('span', ', error ' + fmt(first.first.error_jump) + 'x the error before it', s);
  } else h('span', floor > 0 ? 'none above ' + fmt(floor) : 'not judged', s);
  table('first', 'First divergences', 'The op named as each token\'s first divergence, in execution order; ' +
        'follow a token to see all its rows.',
        [['token', where, href], ['op', function (e) { return label(e.first); }, null],
         ['jump', function (e) { return e.first.error_jump; }, null], ['margin', function (e) { return e.first.margin; }, null],
         ['RED', function (e) { return e.first.red; }, null], ['cosine', function (e) { return e.first.cosine; }, null],
         ['recomputed', function (e) { return e.first.recompute ? e.first.recompute.join('; ') : ''; }, null]],
        diverged, 200, null, false);
  table('tokens', 'Tokens', 'One page per token (the link): its RED and cosine along execution order and its rows.',
        [['token', where, href], ['rows', function (e) { return e.rows; }, null],
         ['fail', function (e) { return e.fails; }, null], ['max RED', function (e) { return e.red_max; }, null],
         ['min cosine', function (e) { return e.cos_min; }, null],
         ['first divergence', function (e) { return label(e.first); }, null],
         ['suspect', function (e) { return label(e.suspect); }, null]],
        tokens, 1000, null, false);
  table('types', 'Op types', 'Every row of every token, by the op type of my side.',
        [['type', function (e) { return e.type; }, null], ['rows', function (e) { return e.rows; }, null],
         ['fail', function (e) { return e.fails; }, null], ['max RED', function (e) { return e.red_max; }, null],
         ['mean RED', function (e) { return e.red_mean; }, null], ['min cosine', function (e) { return e.cos_min; }, null]],
        types, 1000, 3, true);
  table('worst', 'Worst rows', 'The ' + worst.length + ' rows with the largest RED of the run (at most ' + totals.worst_limit + ').',
        [['token', where, href], ['op', label, null], ['verdict', function (r) { return r.verdict; }, null],
         ['divergence', function (r) { return r.divergence; }, null], ['RED', function (r) { return r.red; }, null],
         ['cosine', function (r) { return r.cosine; }, null], ['max abs err', function (r) { return r.max_abs; }, null]],
        worst, totals.worst_limit, null, false);
  body.setAttribute('data-tokens', String(tokens.length));
  body.setAttribute('data-rows', String(totals.rows));
  body.setAttribute('data-diverged', String(diverged.length));
  body.setAttribute('data-first', first ? label(first.first) : '');
  body.setAttribute('data-first-href', first ? first.href : '');
  body.setAttribute('data-types', String(types.length));
  body.setAttribute('data-worst', String(worst.length));
  // Milliseconds from the start of navigation to here: the page's load time without the browser's start.
  body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  body.setAttribute('data-ready', '1');
})();
)JS");
}  // namespace

const char* const kHtmlOverviewScript = kHtmlOverviewScriptText.data();

}  // namespace msit
