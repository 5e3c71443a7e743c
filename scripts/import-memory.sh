#!/bin/sh
# Measures what a zip bomb posted to POST /api/captures/import costs the
# server: a zip holding one 500 MiB Markdown file of spaces (about 1.5 MB
# compressed), posted once, then four at once from four accounts. Prints the
# growth of the server's resident memory (peak minus the figure before).
# Needs go, python3 and curl. Not part of go test: run it by hand.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

(cd "$root" && CGO_ENABLED=0 go build -o "$work/recur" .)

python3 - "$work/bomb.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("2024-01-05.md", "w", force_zip64=True) as f:
        chunk = b" " * (1 << 20)
        for _ in range(500):
            f.write(chunk)
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export RECUR_STORAGE_DATA_DIR="$work/data" RECUR_SERVER_ADDR="127.0.0.1:$port" \
	RECUR_SERVER_BASE_URL="http://127.0.0.1:$port" RECUR_OLLAMA_URL="http://127.0.0.1:9"
mkdir -m 700 "$work/data"
"$work/recur" migrate up >/dev/null 2>&1
for i in 1 2 3 4; do
	"$work/recur" user add "user$i@example.com" >/dev/null
	"$work/recur" token create "user$i@example.com" >"$work/token$i"
done

"$work/recur" serve >"$work/serve.log" 2>&1 &
pid=$!
tries=0
until curl -fs "http://127.0.0.1:$port/api/health-check" >/dev/null; do
	tries=$((tries + 1))
	if [ "$tries" -gt 100 ]; then echo "recur serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; fi
	sleep 0.1
done

kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$pid/status"; }
post() {
	curl -s -o "$work/answer$1" -w "%{http_code}" -H "Authorization: Bearer $(cat "$work/token$1")" \
		-H "Content-Type: application/zip" --data-binary "@$work/bomb.zip" \
		"http://127.0.0.1:$port/api/captures/import?filename=bomb.zip"
}
# VmHWM is the peak resident size so far; writing 5 to clear_refs resets it.
reset_peak() { echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true; }

echo "bomb: $(wc -c <"$work/bomb.zip") bytes compressed, 500 MiB unpacked"
before=$(kib VmRSS)
reset_peak
status=$(post 1)
after=$(kib VmHWM)
echo "one upload: status $status, RSS before $((before / 1024)) MiB, peak $((after / 1024)) MiB, growth $(((after - before) / 1024)) MiB"
echo "  answer: $(cat "$work/answer1")"

before=$(kib VmRSS)
reset_peak
posts=
for i in 1 2 3 4; do
	post "$i" >"$work/status$i" &
	posts="$posts $!"
done
for p in $posts; do wait "$p"; done
after=$(kib VmHWM)
echo "four at once: statuses $(for i in 1 2 3 4; do printf "%s " "$(cat "$work/status$i")"; done)"
echo "  RSS before $((before / 1024)) MiB, peak $((after / 1024)) MiB, growth $(((after - before) / 1024)) MiB"
