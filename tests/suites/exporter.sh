#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# exporter.sh - --listen against a real Prometheus, Debian's `prometheus`
# package: perf-run counts the calls of tests/progs/loop N (which prints the
# truth) and serves its maps on 127.0.0.1; a Prometheus started here on
# loopback with a temporary config scrapes it every second, and PromQL
# queries through its HTTP API must return the counts the script made, the
# histogram's buckets and a quantile between its bounds.  promtool (same
# package) lints the text format.  A second perf-run on the same port must
# fail, saying why.
#
# Prometheus comes from /usr/bin/prometheus if installed, else from the
# package fetched with `apt-get download` and unpacked under
# $BUILD/prometheus (dpkg -i would also create a user and start the
# system's Prometheus service on every address); if it cannot be had, every
# case is skipped with the reason.  Last line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
PERF_RUN=${PERF_RUN:-build/perf-run}
BUILD=${BUILD:-build}
N=1234
passed=0 failed=0 skipped=0
tmp=$(mktemp -d /tmp/perfrun-exporter.XXXXXX)
pr_pid= prom_pid=

cleanup() {
	[[ -n $prom_pid ]] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	[[ -n $pr_pid ]] && kill -INT "$pr_pid" 2>/dev/null && wait "$pr_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [[ -n ${2:-} ]] && sed 's/^/    | /' <<<"$2" | head -n 60; failed=$((failed + 1)); }
skip_all() {
	echo "SKIP exporter against Prometheus: $1"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

# ---- Prometheus and promtool from Debian's package ----
find_prometheus() {
	local dir=$BUILD/prometheus
	if [[ -x /usr/bin/prometheus && -x /usr/bin/promtool ]]; then
		PROM=/usr/bin/prometheus PROMTOOL=/usr/bin/promtool
		return 0
	fi
	PROM=$dir/usr/bin/prometheus PROMTOOL=$dir/usr/bin/promtool
	[[ -x $PROM ]] && return 0
	command -v apt-get >/dev/null || { why="no apt-get to fetch Debian's prometheus"; return 1; }
	mkdir -p "$tmp/deb" "$dir" || { why="cannot create $dir"; return 1; }
	if ! (cd "$tmp/deb" && apt-get download prometheus) >"$tmp/apt.log" 2>&1; then
		why="apt-get download prometheus failed: $(grep -m1 '^E:' "$tmp/apt.log")"
		return 1
	fi
	dpkg-deb -x "$tmp"/deb/prometheus_*.deb "$dir" 2>"$tmp/apt.log" || {
		why="dpkg-deb -x failed: $(head -n 1 "$tmp/apt.log")"
		return 1
	}
	[[ -x $PROM ]] || { why="the package holds no usr/bin/prometheus"; return 1; }
}
why=
find_prometheus || skip_all "$why"
command -v curl >/dev/null || skip_all "curl is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed (reads Prometheus' JSON)"
echo "prometheus: $("$PROM" --version 2>&1 | head -n 1)"

# ---- perf-run, serving ----
cat >"$tmp/count.bt" <<'EOF'
uprobe:./tests/progs/loop:func
{
	@calls = count();
	@by_comm[comm] = count();
	@arg = hist(arg0);
	@arg_avg = avg(arg0);
}
EOF
"$PERF_RUN" --listen 127.0.0.1:0 "$tmp/count.bt" >"$tmp/pr.out" 2>"$tmp/pr.err" &
pr_pid=$!
url=
for _ in $(seq 300); do
	url=$(sed -n 's/^perf-run: serving metrics at //p' "$tmp/pr.err")
	[[ -n $url ]] && break
	kill -0 "$pr_pid" 2>/dev/null || break
	sleep 0.1
done
[[ -n $url ]] || { fail "perf-run --listen starts" "$(cat "$tmp/pr.err")"; echo "$passed passed, $failed failed, $skipped skipped"; exit 1; }
target=${url#http://}
target=${target%/metrics}
pass "perf-run --listen serves at $url"

# ---- Prometheus on loopback, scraping it every second ----
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: perf-run
    static_configs:
      - targets: ['$target']
EOF
for _ in 1 2 3 4 5; do
	pport=$((20000 + RANDOM % 30000))
	ss -Hltn "sport = :$pport" 2>/dev/null | grep -q . && continue
	"$PROM" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$tmp/prom.log" 2>&1 &
	prom_pid=$!
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 && break 2
		kill -0 "$prom_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	prom_pid=
done
[[ -n $prom_pid ]] || skip_all "Prometheus did not start: $(tail -n 3 "$tmp/prom.log")"
api=http://127.0.0.1:$pport/api/v1

# The value of an instant query's first result, or "none".
query() {
	curl -s --max-time 5 --get --data-urlencode "query=$1" "$api/query" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(r[0]["value"][1] if r else "none")
except Exception as e:
    print("error: %s" % e)'
}
# Polls query $1 until it gives $2 (30 s at most); the last value in $got.
wait_for() {
	for _ in $(seq 60); do
		got=$(query "$1")
		[[ $got == "$2" ]] && return 0
		sleep 0.5
	done
	return 1
}

if wait_for 'up{job="perf-run"}' 1; then
	pass "Prometheus scrapes perf-run (up == 1)"
else
	fail "Prometheus scrapes perf-run (up == 1), got $got" "$(tail -n 20 "$tmp/prom.log")"
fi

# ---- the workload, and what Prometheus makes of it ----
truth=$(./tests/progs/loop $N 2>&1)
if [[ $truth != "calls=$N sum=$((N * (N - 1) / 2)) ret=$((N * (N - 1)))" ]]; then
	fail "tests/progs/loop $N prints its truth" "$truth"
fi
q='perf_run_calls_total{job="perf-run"}'
if wait_for "$q" "$N"; then
	pass "PromQL $q = $got, the calls loop made ($truth)"
	echo "    $(curl -s --get --data-urlencode "query=$q" "$api/query")"
else
	fail "PromQL $q = $N (loop: $truth), got $got" "$(curl -s "$url")"
fi
q='perf_run_by_comm_total{key1="loop"}'
got=$(query "$q")
[[ $got == "$N" ]] && pass "PromQL $q = $got (map key as label)" ||
	fail "PromQL $q = $N, got $got"
q='perf_run_arg_count'
got=$(query "$q")
[[ $got == "$N" ]] && pass "PromQL $q = $got (histogram count)" || fail "PromQL $q = $N, got $got"
# func(i) for i = 0..N-1: the bucket [512, 1024) ends at le 1023, with 1024 values up to it
q='perf_run_arg_bucket{le="1023.0"}'
got=$(query "$q")
[[ $got == 1024 ]] && pass "PromQL $q = $got (cumulative bucket)" || fail "PromQL $q = 1024, got $got"
q='histogram_quantile(0.5, perf_run_arg_bucket)'
got=$(query "$q")
# the median, (N-1)/2 = 616.5, is in the bucket (511, 1023]: Prometheus interpolates in it
if python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 511 < v <= 1023 else 1)" "$got" 2>/dev/null; then
	pass "PromQL $q = $got, in the median's bucket (511, 1023]"
else
	fail "PromQL $q in (511, 1023], got $got"
fi
q='perf_run_arg_avg_sum / perf_run_arg_avg_count'
got=$(query "$q")
[[ $got == "$(python3 -c "print($N * ($N - 1) / 2 / $N)")" ]] &&
	pass "PromQL $q = $got (avg() as a summary)" || fail "PromQL $q = $(((N - 1) / 2)).5, got $got"
q='perf_run_events_lost_total'
got=$(query "$q")
[[ $got == 0 ]] && pass "PromQL $q = 0" || fail "PromQL $q = 0, got $got"

# ---- the text format linted by promtool ----
if [[ -x $PROMTOOL ]]; then
	lint=$(curl -s "$url" | "$PROMTOOL" check metrics 2>&1)
	if ! grep -qi 'error' <<<"$lint"; then
		pass "promtool check metrics: no error${lint:+ (lint: $(tr '\n' ' ' <<<"$lint"))}"
	else
		fail "promtool check metrics" "$lint"
	fi
else
	echo "SKIP promtool check metrics: no promtool"
	skipped=$((skipped + 1))
fi

# ---- the port is taken: a second perf-run says so and stops ----
out=$(timeout 20 "$PERF_RUN" --listen "$target" -e 'BEGIN { printf("ran\n"); exit(); }' 2>&1)
status=$?
if ((status == 1)) && grep -q "^perf-run: --listen $target: cannot listen there: Address already in use$" <<<"$out" &&
   ! grep -q '^ran$' <<<"$out"; then
	pass "a second --listen on the same port fails before running anything"
else
	fail "a second --listen on the same port fails (status $status)" "$out"
fi

kill "$prom_pid" 2>/dev/null
wait "$prom_pid" 2>/dev/null
prom_pid=
kill -INT "$pr_pid"
wait "$pr_pid"
status=$?
pr_pid=
if ((status == 0)) && grep -q "^@calls: $N$" "$tmp/pr.out"; then
	pass "perf-run ends on SIGINT and prints @calls: $N"
else
	fail "perf-run ends on SIGINT and prints @calls: $N (status $status)" "$(cat "$tmp/pr.out" "$tmp/pr.err")"
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
