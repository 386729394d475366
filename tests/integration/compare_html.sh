#!/bin/bash
# `compare --html`: an overview page and one page per token beside it (docs/compare.md "HTML
# report"), self-contained (no network references), rendered by headless Debian chromium: the
# overview's scripts run without errors, count the tokens and rows of the CSV, name the first
# divergence and link to a token page that exists for every token; that token's page plots one
# point per row of the token, marks the first divergence and links back to the overview.
# Skips (exit 77) when chromium is not installed (scripts/deps installs it).
# Usage: compare_html.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

S="$T/model"
"$GEN" model --out "$S" --ops 12 --tokens 2 --diverge-at 7 --diverge-scale 0.05 --seed 2 >/dev/null
rc=0
"$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$T/out" --html "$T/report.html" >"$T/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "compare exit $rc"; cat "$T/log"; exit 1; }
grep -q "HTML report: $T/report.html (one page per token in $T/report.tokens)" "$T/log"
# Self-contained: no external script, style, image or link.
for f in "$T/report.html" "$T"/report.tokens/*.html; do
  if grep -Eq '<(script|link|img)[^>]+(src|href)=' "$f"; then echo "$f loads something from outside"; exit 1; fi
done
CSV=$(ls "$T"/out/*.csv)

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "compare_html: SKIPPED: chromium is not installed (scripts/deps installs it)"
  exit 77
fi
render() {  # render PAGE DOM: the DOM after the page's scripts ran
  timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$2" 2>"$T/chromium.log" || {
    echo "chromium failed on $1"; tail -20 "$T/chromium.log"; exit 1; }
  if grep -q "Uncaught" "$T/chromium.log"; then echo "JS error in $1:"; grep "Uncaught" "$T/chromium.log"; exit 1; fi
}
render "$T/report.html" "$T/overview.dom"
FIRST=$(python3 - "$T" "$CSV" <<'PY'
import csv, os, re, sys
t, rows = sys.argv[1], list(csv.DictReader(open(sys.argv[2])))
dom = open(os.path.join(t, "overview.dom")).read()
attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom).group(1)))
assert "data-js-error" not in attrs, attrs.get("data-js-error")
assert attrs.get("data-ready") == "1", ("scripts did not finish", attrs)
tokens = sorted({r["token_id"] for r in rows}, key=int)
assert attrs["data-tokens"] == str(len(tokens)) and attrs["data-rows"] == str(len(rows)), attrs
first = [r for r in rows if r["divergence"] == "first"]
assert attrs["data-diverged"] == str(len(first)), (attrs["data-diverged"], len(first))
op = first[0]["my_data_path"].split("/")[-1].split(",")[0].split(".")
want = "%s (%s) output 0" % (op[1], op[0])
assert attrs["data-first"].startswith(want + " vs "), (attrs["data-first"], want)
assert attrs["data-first-href"] == "report.tokens/rank0_token%s.html" % first[0]["token_id"], attrs["data-first-href"]
# Every link of the overview reaches a token page that exists, and every token has one.
links = set(re.findall(r'<a [^>]*href="([^"]+)"', dom))
assert links == {"report.tokens/rank0_token%s.html" % k for k in tokens}, links
for l in links:
    assert os.path.isfile(os.path.join(t, l)), l
assert sorted(os.listdir(os.path.join(t, "report.tokens"))) == sorted(os.path.basename(l) for l in links)
print(os.path.join(t, attrs["data-first-href"]), first[0]["token_id"], want)
PY
)
read -r PAGE TOKEN WANT_OP <<<"$FIRST"
render "$PAGE" "$T/token.dom"
python3 - "$T/token.dom" "$CSV" "$TOKEN" <<'PY'
import csv, re, sys
dom = open(sys.argv[1]).read()
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["token_id"] == sys.argv[3]]
attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom).group(1)))
assert "data-js-error" not in attrs, attrs.get("data-js-error")
assert attrs.get("data-ready") == "1", ("scripts did not finish", attrs)
n = len(rows)
assert attrs["data-rows"] == str(n), (attrs["data-rows"], n)
assert attrs["data-points"] == str(n) and attrs["data-cos-points"] == str(n), attrs
first = [r for r in rows if r["divergence"] == "first"]
assert len(first) == 1, first
op = first[0]["my_data_path"].split("/")[-1].split(",")[0].split(".")
want = "%s (%s) output 0" % (op[1], op[0])
# My side's label, then the golden side's FX node (docs/compare.md "Op labels").
assert attrs["data-first"].startswith(want + " vs ") and attrs["data-marked"] == attrs["data-first"], (
    attrs["data-first"], attrs["data-marked"], want)
fails = sum(1 for r in rows if r["verdict"] == "fail")
assert attrs["data-fail-points"] == str(fails), (attrs["data-fail-points"], fails)
# The points themselves, counted in the DOM: RED plot and cosine plot, one per row each.
assert dom.count('class="pt ') == 2 * n, dom.count('class="pt ')
assert dom.count('class="mark"') == 2
assert '<a id="overview" href="../report.html">' in dom, "no link back to the overview"
print("compare_html: ok:", n, "points per plot in token", sys.argv[3], "marked", want)
PY
