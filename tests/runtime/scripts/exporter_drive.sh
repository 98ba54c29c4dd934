#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# exporter_drive.sh - the command tests/runtime/exporter.test runs under
# `perf-run --listen 127.0.0.1:0 ... -- tests/runtime/scripts/exporter_drive.sh MODE N`:
# it finds the port its parent perf-run listens on, runs `sysmix N` (whose
# getppid() calls the cases count), and talks to /metrics; what it prints
# goes to the case's stdout, beside perf-run's own output.
#   scrape N   sysmix N, then GET /metrics (0.0.4)
#   om N       sysmix N, then GET /metrics asking for OpenMetrics
#   bad N      garbage, an over-long URL and header, POST, another path, HEAD,
#              a GET with a body, two scrapes on one connection; then scrape N
#   slow N     a client that never ends its request and a flood of connections
#              held open while sysmix N runs; then a scrape while the slow one waits
set -u
mode=$1 n=$2
port=
for _ in $(seq 100); do   # perf-run listens before its command is let go: at once
	port=$(ss -Hltnp 2>/dev/null | sed -n "s/.* 127\.0\.0\.1:\([0-9][0-9]*\) .*pid=$PPID,.*/\1/p" | head -n 1)
	[[ -n $port ]] && break
	sleep 0.05
done
[[ -n $port ]] || { echo "exporter_drive: perf-run (pid $PPID) listens nowhere" >&2; exit 1; }
url=http://127.0.0.1:$port/metrics

work() { ((n == 0)) || ./tests/progs/sysmix "$n" >/dev/null 2>&1; }
scrape() { curl -s --max-time 5 "$@" "$url"; }

# The first line of the answer to raw bytes on a new connection.
raw() {
	local line
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return
	printf '%b' "$1" >&3
	IFS= read -t 5 -r line <&3
	exec 3>&-
	echo "${line%$'\r'}"
}

case $mode in
scrape)
	work
	scrape
	;;
om)
	work
	scrape -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
		-w 'content-type: %{content_type}\n'
	echo "preferring text: $(scrape -o /dev/null -w '%{content_type}' \
		-H 'Accept: text/plain;version=0.0.4, application/openmetrics-text;q=0.5')"
	echo "refusing openmetrics: $(scrape -o /dev/null -w '%{content_type}' \
		-H 'Accept: application/openmetrics-text;q=0, */*;q=0.1')"
	;;
bad)
	echo "garbage: $(raw 'GARBAGE \x01\x02\xff\r\n\r\n')"
	echo "no version: $(raw 'GET /metrics\r\n\r\n')"
	long=$(printf 'a%.0s' $(seq 40000))
	echo "long url: $(curl -s --max-time 5 -o /dev/null -w "%{http_code}" "$url?$long")"
	echo "long header: $(scrape -o /dev/null -w '%{http_code}' -H "X-Long: $long")"
	echo "post: $(scrape -o /dev/null -w '%{http_code} allow %header{allow}' -d 'x=1')"
	echo "other path: $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "${url%/metrics}/other")"
	echo "head: $(scrape -I -o /dev/null -w '%{http_code} body %{size_download}')"
	echo "get with a body: $(scrape -X GET -d 'x=1' -o /dev/null -w '%{http_code}')"
	echo "kept alive:$(curl -s --max-time 5 -o /dev/null -o /dev/null -w ' %{num_connects}' "$url" "$url")"
	work
	scrape
	;;
slow)
	exec 4<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&4   # and never the blank line
	fds=()
	for _ in $(seq 40); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$port" && fds+=("$fd")
	done
	work
	for fd in "${fds[@]}"; do exec {fd}>&-; done
	scrape   # while the slow client still waits
	echo "slow client: $(timeout 1 cat <&4 | head -c 12)(still waiting)"
	exec 4>&-
	;;
*)
	echo "exporter_drive: no mode $mode" >&2
	exit 2
	;;
esac
