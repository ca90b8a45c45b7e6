#!/usr/bin/env bash
# bench/ship/run.sh — the warehouse's loop beside the order intake (docs/benchmarks.md, "The warehouse's
# loop"), in one run under three minutes with the defaults.
#
# Uses bench/intake/setup.sh on a database of its own (fulfillment_bench_ship, made anew: its server,
# fixture and helpers), then:
#   1. the intake: its load generator with CLIENTS clients for DURATION (closed loop), as in
#      bench/intake/run.sh, and open loop at half that rate (its p99), so that the intake's own figures
#      are measured in the same run;
#   2. SHIPMENTS pending Pick & Pack shipments of three products each for the service (shp_svc_N) and as
#      many for pgbench (shp_pgb_N), written by bench/ship/pending.sql, with plenty on hand;
#   3. ROUNDS times: the ship load generator (bench/ship) shipping shp_svc_N with CLIENTS clients for
#      DURATION (the maximum rate), with PostgreSQL's CPU time per ship (the benchmark database's
#      backends, sampled as the intake's benchmark does); then pgbench running bench/ship/minimal.sql,
#      the same row writes in a minimal transaction, the same way; and their ratio;
#   4. the ship load generator open loop at half the best ship rate: p50/p99/p99.9.
#
# Both load generators warm up for WARMUP first (not measured: the first statements on freshly made
# tables cost PostgreSQL several times what later ones do, which would bias round 1).
#
# Knobs (environment): CLIENTS (8), DURATION (10s), ROUNDS (3), WARMUP (5s), SHIPMENTS (30000), PORT (18093),
# KEEP=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

command -v pgbench >/dev/null || { echo "run.sh: pgbench is missing (Debian: apt-get install postgresql-client)" >&2; exit 1; }
PORT=${PORT:-18093}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-5s}
SHIPMENTS=${SHIPMENTS:-30000}
export BENCH_DB=fulfillment_bench_ship
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh
go build -o bin/ship-loadgen ./bench/ship
serve "$PORT"
server_pid=${pids[-1]}

echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $SHIPMENTS shipments per pool, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
loadgen "$PORT" -c "$CLIENTS" -d "$WARMUP" >/dev/null # warm-up, not measured
vacuum
out=$(loadgen "$PORT" -c "$CLIENTS" -d "$DURATION" -pid "$server_pid" ${pg_pid:+-pg-pid "$pg_pid" -pg-db "$DB"})
intake_rate=$(field throughput "$out")
printf 'intake: %.1f orders/s (%s failed, p50 %s ms, p99 %s ms), PostgreSQL CPU per order %s µs\n' "$intake_rate" \
	"$(field failed "$out")" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field pg_cpu_us_per_order "$out")"
half=$(awk -v b="$intake_rate" 'BEGIN { printf "%.0f", b / 2 }')
out=$(loadgen "$PORT" -c $((CLIENTS * 4)) -d "$DURATION" -rate "$half")
printf 'intake open loop at %s orders/s: %s ok, %s failed, p50 %s ms, p99 %s ms, p99.9 %s ms\n' "$half" \
	"$(field ok "$out")" "$(field failed "$out")" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field p999_ms "$out")"

psql -X -q "$bench_url" -v n="$SHIPMENTS" -v prefix=shp_svc_ -v skus="$SKUS" -f bench/ship/pending.sql
psql -X -q "$bench_url" -v n="$SHIPMENTS" -v prefix=shp_pgb_ -v skus="$SKUS" -f bench/ship/pending.sql
export SHIP_TOKEN
SHIP_TOKEN=$("$svc" token mint --warehouse wh_bench --scopes warehouse --ttl 1h)
next=1
shipgen() { # shipgen [FLAGS...]: ship from shp_svc_$next on, then move next past what it used
	local out
	out=$(bin/ship-loadgen -url "http://127.0.0.1:$PORT" -prefix shp_svc_ -start "$next" -n $((SHIPMENTS + 1 - next)) "$@")
	next=$((next + $(field sent "$out")))
	printf '%s' "$out"
}
shipgen -c "$CLIENTS" -d "$WARMUP" >/dev/null # warm-up, not measured

rates=() ratios=()
for round in $(seq "$ROUNDS"); do
	vacuum
	[[ -z $pg_pid ]] || { bin/intake-loadgen -watch-pg -pg-pid "$pg_pid" -pg-db "$DB" >.tmp/bench-ship-pgcpu & watcher=$!; }
	out=$(shipgen -c "$CLIENTS" -d "$DURATION")
	ship_pg="" ship_pg_server=""
	if [[ -n $pg_pid ]]; then
		sleep 0.2
		kill -TERM "$watcher" && wait "$watcher"
		read -r -a cpu <.tmp/bench-ship-pgcpu
		ship_pg=$(awk -v c="${cpu[0]}" -v n="$(field ok "$out")" 'BEGIN { printf "%.0f", c / n }')
		ship_pg_server=$(awk -v c="${cpu[1]}" -v n="$(field ok "$out")" 'BEGIN { printf "%.0f", c / n }')
	fi
	rate=$(field throughput "$out")
	rates+=("$rate")
	pgbench_run bench/ship/minimal.sql -D n="$SHIPMENTS"
	ratio=""
	[[ -z $ship_pg || -z $pg_us ]] || { ratio=$(awk -v a="$ship_pg" -v b="$pg_us" 'BEGIN { printf "%.2f", a / b }'); ratios+=("$ratio"); }
	printf 'round %d: ship %.1f/s (%s failed%s, p50 %s ms, p99 %s ms), PostgreSQL CPU per ship %s µs (whole server %s) | pgbench minimal.sql %.1f tps, %s µs (%s) | ratio %s\n' \
		"$round" "$rate" "$(field failed "$out")" "$( [[ $(sed -nE 's/.*"exhausted":(true|false).*/\1/p' <<<"$out") == true ]] && echo ', pool used up')" \
		"$(field p50_ms "$out")" "$(field p99_ms "$out")" "$ship_pg" "$ship_pg_server" "$tps" "$pg_us" "$pg_server_us" "$ratio"
done
best=$(printf '%s\n' "${rates[@]}" | sort -g | tail -1)
half=$(awk -v b="$best" 'BEGIN { printf "%.0f", b / 2 }')
((${#ratios[@]} == 0)) ||
	echo "median ratio of PostgreSQL's CPU per ship, service/minimal.sql: $(median "${ratios[@]}") (rounds ${ratios[*]}; target ≤ 1.3)"
out=$(shipgen -c $((CLIENTS * 4)) -d "$DURATION" -rate "$half")
printf 'ship open loop at %s/s (half the best rate): %s ok, %s failed, p50 %s ms, p99 %s ms, p99.9 %s ms (target p99 ≤ 25 ms)%s\n' \
	"$half" "$(field ok "$out")" "$(field failed "$out")" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field p999_ms "$out")" \
	"$(sed -nE 's/.*"first_error":"([^"]{0,120}).*/; first failure: \1/p' <<<"$out")"
