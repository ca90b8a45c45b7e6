#!/usr/bin/env bash
# bench/console/run.sh — the operator's console at scale in one command (docs/benchmarks/console.md):
# fills the scale database (fulfillment_bench_console: 1M invoices, 1M shipments, their lines, stock
# and its ledger, failed orders with kept bodies, billing, audit records, API keys; kept between runs,
# so only the first run pays), starts `fulfillment serve` with the console on it (sandbox, no OpenID
# provider), signs in with `fulfillment console link` and reads every page and its heavy variants in
# one interleaved closed loop; prints p50/p99/max per page and fails (exit 1) when a page's p99 is
# over 100 ms.
#
#   bench/console/run.sh                               # PostgreSQL from scripts/pg.sh
#   CLIENTS=4 REQUESTS=200 bench/console/run.sh -only shipments   # flags after it go to `console load`
#   SERVICE_BIN=path/to/fulfillment bench/console/run.sh   # another build of the service (e.g. of another branch)
#   EXPLAIN=20 bench/console/run.sh     # also logs, in PostgreSQL's own log, EXPLAIN (ANALYZE, BUFFERS) of
#                                       # every statement over 20 ms (auto_explain; it slows every statement)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

CLIENTS=${CLIENTS:-4}
REQUESTS=${REQUESTS:-200}
PORT=${PORT:-18095}
API_PORT=${API_PORT:-18096}
if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pg_env="$(scripts/pg.sh)"
	eval "$pg_env"
fi
# The scale database lives on the same server as the test databases.
dsn() { local u=${TEST_DATABASE_URL%%\?*}; local q=${TEST_DATABASE_URL#"$u"}; echo "${u%/*}/$1$q"; }
DSN=$(dsn fulfillment_bench_console)

work=.tmp/bench-console
mkdir -p "$work"
svc=${SERVICE_BIN:-$work/fulfillment}
[[ -n ${SERVICE_BIN:-} ]] || go build -o "$svc" ./cmd/fulfillment
go build -o "$work/console" ./bench/console
"$work/console" gen -dsn "$DSN"
# The console's own migrations, and any of a newer build than the generator's.
DATABASE_URL=$DSN "$svc" migrate up >/dev/null

db=fulfillment_bench_console
explain_settings=(session_preload_libraries auto_explain.log_min_duration auto_explain.log_analyze auto_explain.log_buffers)
reset_explain() { for s in "${explain_settings[@]}"; do psql -X -q "$DSN" -c "ALTER DATABASE $db RESET $s"; done; }
if [[ -n ${EXPLAIN:-} ]]; then
	psql -X -q "$DSN" -c "ALTER DATABASE $db SET session_preload_libraries = 'auto_explain'" \
		-c "ALTER DATABASE $db SET auto_explain.log_min_duration = '${EXPLAIN}ms'" \
		-c "ALTER DATABASE $db SET auto_explain.log_analyze = on" -c "ALTER DATABASE $db SET auto_explain.log_buffers = on"
fi

export DATABASE_URL=$DSN ENVIRONMENT=sandbox CONSOLE_ADDR=127.0.0.1:$PORT OTEL_TRACES_EXPORTER=none LOG_LEVEL=warn
export AUTH_SIGNING_KEY=bench-console-signing-key-0123456789abcdef
pid=""
stop() {
	[[ -z $pid ]] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; } || true
	[[ -z ${EXPLAIN:-} ]] || reset_explain
}
trap stop EXIT
HTTP_ADDR=127.0.0.1:$API_PORT "$svc" serve 2>"$work/serve.log" &
pid=$!
for _ in $(seq 100); do
	curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "run.sh: the console on :$PORT did not get ready; see $work/serve.log" >&2; exit 1; }
link=$("$svc" console link --subject bench-console --roles viewer --ttl 15m | grep -Eo 'https?://[^[:space:]]+' | tail -1)

echo "## Machine"
echo
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(psql "$DSN" -Atc 'SHOW server_version' 2>/dev/null || echo 'PostgreSQL'), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(psql "$DSN" -Atc "SELECT format('%s invoices, %s shipments, %s shipment lines, %s stock movements, %s charges, %s failed receipts, %s audit records', (SELECT count(*) FROM invoices), (SELECT count(*) FROM shipments), (SELECT count(*) FROM shipment_items), (SELECT count(*) FROM stock_movements), (SELECT count(*) FROM billing_charges), (SELECT count(*) FROM order_receipts WHERE status = 'failed'), (SELECT count(*) FROM audit_records))")"
echo
echo "## Pages"
echo
"$work/console" load -url "http://127.0.0.1:$PORT" -link "$link" -c "$CLIENTS" -n "$REQUESTS" "$@"
