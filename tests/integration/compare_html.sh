#!/bin/bash
# `compare --html`: one self-contained page (no network references), rendered by headless
# Debian chromium: the page's scripts run without errors, the RED and cosine plots have one
# point per row of the shown rank/token, and the marked op is the first divergence of the
# report. Skips (exit 77) when chromium is not installed (scripts/deps installs it).
# Usage: compare_html.sh MSIT_BIN MSIT_DUMPGEN
set -euo pipefail
BIN=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

S="$T/model"
"$GEN" model --out "$S" --ops 12 --tokens 1 --diverge-at 7 --diverge-scale 0.05 --seed 2 >/dev/null
rc=0
"$BIN" compare -m "$S/msit_ge_dump" -g "$S/msit_fx_dump" -o "$T/out" --html "$T/report.html" >"$T/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "compare exit $rc"; cat "$T/log"; exit 1; }
grep -q "HTML report: $T/report.html" "$T/log"
# Self-contained: no external script, style, image or link.
if grep -Eq '<(script|link|img)[^>]+(src|href)=' "$T/report.html"; then
  echo "report.html loads something from outside"; exit 1
fi
CSV=$(ls "$T"/out/*.csv)

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "compare_html: SKIPPED: chromium is not installed (scripts/deps installs it)"
  exit 77
fi
timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
  --enable-logging=stderr --v=0 --dump-dom "file://$T/report.html" >"$T/dom.html" 2>"$T/chromium.log" || {
  echo "chromium failed"; tail -20 "$T/chromium.log"; exit 1; }
if grep -q "Uncaught" "$T/chromium.log"; then echo "JS error:"; grep "Uncaught" "$T/chromium.log"; exit 1; fi
python3 - "$T/dom.html" "$CSV" <<'PY'
import csv, re, sys
dom = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
m = re.search(r"<body([^>]*)>", dom)
assert m, "no body in the dumped DOM"
attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
assert "data-js-error" not in attrs, attrs.get("data-js-error")
assert attrs.get("data-ready") == "1", ("scripts did not finish", attrs)
n = len(rows)  # one rank, one token
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
print("compare_html: ok:", n, "points per plot, marked", want)
PY
