#!/usr/bin/env bash
# bench/invoices/run.sh — the invoice benchmark in one command (docs/benchmarks/invoices.md):
# fills two databases (10,000 and 1,000,000 invoices of one organization; kept between runs,
# so only the first run pays for the million), starts a server on each, measures every query
# shape over HTTP in one interleaved run, then the database time of each shape with EXPLAIN ANALYZE.
#
#   bench/invoices/run.sh                      # PostgreSQL from scripts/pg.sh
#   SMALL=10000 LARGE=1000000 REQUESTS=300 bench/invoices/run.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SMALL=${SMALL:-10000}
LARGE=${LARGE:-1000000}
REQUESTS=${REQUESTS:-300}
ORG=org_bench
if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pg_env="$(scripts/pg.sh)"
	eval "$pg_env"
fi
# The benchmark databases live on the same server as the test databases.
dsn() { local u=${TEST_DATABASE_URL%%\?*}; local q=${TEST_DATABASE_URL#"$u"}; echo "${u%/*}/$1$q"; }
DSN_SMALL=$(dsn fulfillment_bench_10k)
DSN_LARGE=$(dsn fulfillment_bench_1m)

work=.tmp/bench-invoices
mkdir -p "$work"
go build -o "$work/fulfillment" ./cmd/fulfillment
go build -o "$work/invoices" ./bench/invoices

"$work/invoices" gen -dsn "$DSN_SMALL" -org "$ORG" -n "$SMALL"
"$work/invoices" gen -dsn "$DSN_LARGE" -org "$ORG" -n "$LARGE"

key=bench-signing-key-0123456789abcdef-0123456789
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait' EXIT
serve() { # serve DSN PORT
	# Rate limits out of the way of the load of one organization.
	DATABASE_URL=$1 HTTP_ADDR=127.0.0.1:$2 AUTH_SIGNING_KEY=$key OTEL_TRACES_EXPORTER=none \
		RATE_LIMIT=1000000/s RATE_LIMIT_BURST=1000000 "$work/fulfillment" serve 2>"$work/serve-$2.log" &
	pids+=($!)
	for _ in $(seq 100); do
		curl -fsS "http://127.0.0.1:$2/readyz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "run.sh: the server on :$2 did not get ready; see $work/serve-$2.log" >&2
	exit 1
}
serve "$DSN_SMALL" 18081
serve "$DSN_LARGE" 18082
token() { DATABASE_URL=$1 AUTH_SIGNING_KEY=$key "$work/fulfillment" token mint --org "$ORG" --scopes invoices; }

echo "## Machine"
echo
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(psql "$DSN_SMALL" -Atc 'SHOW server_version' 2>/dev/null || echo 'PostgreSQL'), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## HTTP"
echo
"$work/invoices" load -n "$REQUESTS" \
	-target "10k=http://127.0.0.1:18081,$(token "$DSN_SMALL")" \
	-target "1m=http://127.0.0.1:18082,$(token "$DSN_LARGE")"
echo
echo "## Database"
echo
"$work/invoices" explain -dsn "$DSN_SMALL" -org "$ORG"
echo
"$work/invoices" explain -dsn "$DSN_LARGE" -org "$ORG"
