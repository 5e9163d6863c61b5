# tests/cli/report_lib.sh - what report.sh and report_compare.sh share:
# headless Chromium (Debian's chromium) and PIL, or skip; a sanity check
# that this Chromium logs a page's console messages where we look; and
# the checks of one page (page_check).  Sourced after lib.sh.

command -v chromium >/dev/null 2>&1 || skip "no chromium (make deps installs it)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3"
"$PY" -c 'import PIL' 2>/dev/null || skip "no python3-pil (make deps installs it)"

# chrome ARGS... URL: headless Chromium, its log on $T/chrome.err, within 60 s
chrome() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$T/chrome-profile" \
		--enable-logging=stderr --v=0 "$@" 2>"$T/chrome.err"
}

# The console check must see a console message: a page that logs one.
printf '<!DOCTYPE html><html><body><script>console.error("iotape-probe")</script></body></html>\n' \
	>"$T/probe.html" || fail "writing $T/probe.html"
chrome --dump-dom "file://$T/probe.html" >"$T/probe.dom" || fail "chromium failed on a test page: $(tail -n 3 "$T/chrome.err")"
grep -q 'CONSOLE.*iotape-probe' "$T/chrome.err" ||
	skip "this chromium does not log console messages on stderr (--enable-logging=stderr)"

# page_check HTML ANALYZE_JSON_A [ANALYZE_JSON_B]: the page HTML is
# self-contained, loads in Chromium without console messages, has every
# section's plot drawn (twice with B), figures equal to analyze --json's
# (by their data-json-key), and a screenshot that is not blank.
page_check() {
	html=$1 ja=$2 jb=${3:-}
	size=$(wc -c <"$html") || fail "no $html"
	[ "$size" -le 2097152 ] || fail "$html: $size bytes (more than 2 MiB)"
	# nothing fetched: no script, no link, no URL but the SVG namespace
	grep -qi '<script\|<link\|<img\|<iframe\|url(\|@import' "$html" && fail "$html: refers to outside resources"
	sed 's#http://www.w3.org/2000/svg##g' "$html" | grep -qi 'https\?://' && fail "$html: holds a URL"
	chrome --dump-dom "file://$html" >"$T/page.dom" || fail "chromium --dump-dom $html failed: $(tail -n 3 "$T/chrome.err")"
	grep 'CONSOLE' "$T/chrome.err" && fail "$html: console messages in chromium"
	chrome --screenshot="$T/page.png" --window-size=1280,3000 "file://$html" >/dev/null ||
		fail "chromium --screenshot $html failed: $(tail -n 3 "$T/chrome.err")"
	grep 'CONSOLE' "$T/chrome.err" && fail "$html: console messages in chromium (screenshot)"
	"$PY" - "$T/page.dom" "$T/page.png" "$ja" "$jb" <<'EOF' || fail "$html: page check failed"
import json, sys
from html.parser import HTMLParser
from PIL import Image

dom, png, ja, jb = sys.argv[1:5]
sides = {"a": json.load(open(ja))}
if jb:
    sides["b"] = json.load(open(jb))
pair = len(sides) == 2
SECTIONS = ["summary", "bandwidth", "heatmap", "sizes", "randomness", "cache",
            "threads", "latency", "files"]
DRAW = {"rect", "path", "line", "circle", "polyline"}

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.section = None
        self.svgs = []          # [section, id, drawing elements, text]
        self.cur = None
        self.cells = []         # (key, value, side)
        self.checks = []
        self.gs = []            # classes of the open <g>: axes, legends
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g":
            self.gs.append(a.get("class", ""))
        if tag == "section":
            self.section = a.get("id")
        if tag == "svg":
            self.cur = [self.section, a.get("id"), 0, 0]
            self.svgs.append(self.cur)
        elif self.cur is not None and tag in DRAW and not any(self.gs):
            if tag != "path" or a.get("d", "").strip() not in ("", "M"):
                self.cur[2] += 1
        if "data-json-key" in a:
            self.cells.append((a["data-json-key"], a["data-value"], a.get("data-side", "a")))
        if tag == "tr" and "data-check" in a:
            self.checks.append((a["data-check"], a["data-ok"]))
    def handle_endtag(self, tag):
        if tag == "g" and self.gs:
            self.gs.pop()
        if tag == "svg":
            self.cur = None

p = P()
p.feed(open(dom, encoding="utf-8").read())
for s in SECTIONS:
    svgs = [v for v in p.svgs if v[0] == "sec-" + s]
    want = 2 if pair else 1
    if len(svgs) < want:
        sys.exit("section %s: %d plots, want %d" % (s, len(svgs), want))
    for v in svgs:
        # data drawn: elements outside the axes, legends and colour bar
        if v[2] < 1:
            sys.exit("section %s: plot %s is empty (%d elements)" % (s, v[1], v[2]))

def ptr(doc, key):
    v = doc
    for part in key.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        v = v[int(part)] if isinstance(v, list) else v[part]
    return v

if len(p.cells) < 60:
    sys.exit("only %d figures with a data-json-key" % len(p.cells))
for key, raw, side in p.cells:
    want = ptr(sides[side], key)
    got = json.loads(raw)
    if got != want:
        sys.exit("%s (%s): page %r, analyze --json %r" % (key, side, got, want))
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        pass
print("%d figures equal analyze --json's; %d plots" % (len(p.cells), len(p.svgs)))
if pair:
    print("checks:", " ".join("%s=%s" % c for c in p.checks))
    open(dom + ".checks", "w").write("".join("%s %s\n" % c for c in p.checks))

im = Image.open(png).convert("RGB")
w, h = im.size
small = im.resize((w // 4, h // 4))
colours = small.getcolors(1 << 20) or []
nonwhite = sum(n for n, c in colours if c != (255, 255, 255))
if len(colours) < 16 or nonwhite < 0.03 * (w // 4) * (h // 4):
    sys.exit("screenshot looks blank: %d colours, %d non-white pixels" % (len(colours), nonwhite))
EOF
}
