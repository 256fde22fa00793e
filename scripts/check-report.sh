#!/usr/bin/env bash
# check-report.sh — report.html as a browser renders it (headless Chromium):
# a screenshot of the first screen and DOM checks of the budgets of issue 20.
#   usage: scripts/check-report.sh REPORT.html [OUTDIR]
# Checks (each printed as "check NAME: ok|FAIL value"):
#   size       the file is <= 250 KB (LS_MAX_KB)
#   height     the page, evidence folded (<details> closed), is <= 8000 px tall
#              at 1400 px wide (LS_MAX_PX)
#   verdict    the verdict box is styled and on the first screen (top < 900 px)
#   font       no chart text (SVG <text>) renders below 11 px, every <details>
#              opened, font size times the SVG's scale on screen
#   ids        every id attribute is unique
#   legend     no legend entry without a series drawn in its chart
# Writes OUTDIR/first-screen.png (1400x900) and OUTDIR/dom.txt (what the
# page measured).  Exit 0: all checks hold; 1: one failed; 77: Chromium is
# not installed (the caller skips, with this reason); 2: bad usage.
# Chromium is not a build dependency (install-deps.sh does not pull it):
# `apt-get install -y chromium` to run this.
set -u
html=${1:-}
out=${2:-$(mktemp -d)}
[ -n "$html" ] && [ -f "$html" ] || { echo "check-report: usage: $0 REPORT.html [OUTDIR] (no file '$html')" >&2; exit 2; }
chrome=""
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }; done
[ -n "$chrome" ] || { echo "check-report: chromium not installed (apt-get install -y chromium)"; exit 77; }
mkdir -p "$out"
max_kb=${LS_MAX_KB:-250}; max_px=${LS_MAX_PX:-8000}
run_chrome() { timeout 120 "$chrome" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --force-device-scale-factor=1 --window-size=1400,900 "$@" 2>/dev/null; }
probe="$out/.probe.html"
trap 'rm -f "$probe"' EXIT
# the page with a measuring script appended: its results go into a <pre>
# that --dump-dom prints after the load event
cat "$html" > "$probe"
cat >> "$probe" <<'JS'
<script>
window.addEventListener('load', function () {
  var o = [];
  var ds = document.querySelectorAll('details');
  ds.forEach(function (d) { d.open = false; });
  o.push('height ' + document.documentElement.scrollHeight);
  var v = document.querySelector('.verdict');
  if (v) {
    var r = v.getBoundingClientRect(), cs = getComputedStyle(v);
    o.push('verdict_top ' + Math.round(r.top) + ' styled ' + (cs.borderLeftStyle !== 'none' || cs.backgroundColor !== 'rgba(0, 0, 0, 0)' ? 1 : 0));
  } else o.push('verdict_top -1 styled 0');
  ds.forEach(function (d) { d.open = true; });
  var small = 0, minpx = 1e9, where = '';
  document.querySelectorAll('svg text').forEach(function (t) {
    var m = t.getScreenCTM(); if (!m) return;
    var px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    if (!(px > 0)) return;
    if (px < minpx) { minpx = px; where = (t.closest('svg').getAttribute('aria-label') || '?') + ': ' + t.textContent.slice(0, 30); }
    if (px < 11 - 1e-6) small++;
  });
  o.push('font_min ' + (minpx === 1e9 ? 0 : minpx.toFixed(2)) + ' below11 ' + small + ' at ' + where.replace(/\s+/g, ' '));
  var seen = {}, dup = [];
  document.querySelectorAll('[id]').forEach(function (e) { if (seen[e.id]) dup.push(e.id); seen[e.id] = 1; });
  o.push('dup_ids ' + dup.length + ' ' + dup.slice(0, 5).join(','));
  var empty = 0, names = [];
  document.querySelectorAll('svg').forEach(function (s) {
    s.querySelectorAll('[data-legend]').forEach(function (l) {
      var k = l.getAttribute('data-legend');
      if (!s.querySelector('[data-series="' + k + '"]')) { empty++; names.push(k); }
    });
  });
  o.push('empty_legend ' + empty + ' ' + names.slice(0, 5).join(','));
  o.push('svgs ' + document.querySelectorAll('svg').length + ' details ' + ds.length);
  var p = document.createElement('pre'); p.id = 'ls-probe'; p.textContent = o.join('\n');
  document.body.appendChild(p);
});
</script>
JS
run_chrome --virtual-time-budget=5000 --dump-dom "file://$(realpath "$probe")" > "$out/dump.html"
sed -n '/<pre id="ls-probe">/,/<\/pre>/p' "$out/dump.html" | sed 's/<[^>]*>//g' > "$out/dom.txt"
rm -f "$out/dump.html"
run_chrome --screenshot="$out/first-screen.png" "file://$(realpath "$html")" >/dev/null
[ -s "$out/dom.txt" ] || { echo "check-report: Chromium printed no measurements (see $out)"; exit 1; }
get() { awk -v k="$1" '$1 == k { print $2 }' "$out/dom.txt"; }
line() { grep "^$1 " "$out/dom.txt"; }
fail=0
check() { # name ok? detail
    if [ "$2" = 1 ]; then echo "check $1: ok ($3)"; else echo "check $1: FAIL ($3)"; fail=1; fi
}
kb=$(( $(stat -c %s "$html") / 1024 ))
check size "$([ "$kb" -le "$max_kb" ] && echo 1 || echo 0)" "$kb KB, budget $max_kb KB"
h=$(get height)
check height "$([ "${h:-99999}" -le "$max_px" ] && echo 1 || echo 0)" "$h px at 1400 px wide, evidence folded; budget $max_px px"
vt=$(line verdict_top)
check verdict "$(echo "$vt" | awk '{ print ($2 >= 0 && $2 < 900 && $4 == 1) ? 1 : 0 }')" "$vt"
fl=$(line font_min)
check font "$(echo "$fl" | awk '{ print ($4 == 0) ? 1 : 0 }')" "$fl"
di=$(line dup_ids)
check ids "$(echo "$di" | awk '{ print ($2 == 0) ? 1 : 0 }')" "$di"
el=$(line empty_legend)
check legend "$(echo "$el" | awk '{ print ($2 == 0) ? 1 : 0 }')" "$el"
echo "check-report: $(line svgs); screenshot $out/first-screen.png"
exit $fail
