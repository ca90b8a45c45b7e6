#!/usr/bin/env bash
# bench/intake/run.sh — the order intake benchmark of docs/benchmarks/intake.md.
#
# Sets up a database of its own (fulfillment_bench_intake, dropped and made
# anew) on the server scripts/pg.sh finds, seeds products and an API key,
# starts `fulfillment serve` on it and the bare baseline (bench/baseline: a net/http + pgx handler
# of the same intake running the service's two statements, nothing else) on PORT+1, warms both up
# for WARMUP (not measured: the first orders on freshly made tables cost PostgreSQL 2–3× the CPU of
# later ones, which would bias round 1 against the service), then alternates ROUNDS times:
#   - the load generator (bench/intake) delivering distinct valid orders with
#     CLIENTS concurrent clients for DURATION (closed loop: the maximum rate);
#   - the load generator against the baseline, the same way;
#   - pgbench running bench/intake/intake.sql, the equivalent SQL transaction,
#     with the same CLIENTS, -M prepared, for DURATION;
#   - pgbench running bench/intake/minimal.sql, the minimal transaction of one order (look up
#     the SKUs, insert the receipt, the shipment and its items, mark the receipt), the same way;
# and prints each pair's ratio (intake/pgbench, and intake/baseline: what the service's layers
# cost over the least Go server of the same SQL), with the CPU time per order of the server, of the
# baseline and of the load generator, and PostgreSQL's CPU time per order (the postmaster and its children, backends that
# ended during the phase included) in each of the three phases: the intake's over the minimal
# transaction's is the database's cost of an order against the least it could be. That figure is
# the CPU of the benchmark database's backends (sampled every 50 ms, so a backend that ends counts
# up to its last sample): the server is shared, and the whole server's, printed in parentheses,
# includes whatever other databases did meanwhile (and the WAL writer's and checkpointer's work). Last, the load
# generator runs open loop at half the best intake rate measured and prints p50/p99/p99.9.
#
# Before each phase the benchmark database is vacuumed (see vacuum below).
#
# Knobs (environment): CLIENTS (8), DURATION (15s), ROUNDS (5), WARMUP (5s), SKUS (1000),
# LINES (3), PAYLOAD (docs/samples/orders-create.json: every order is a copy of
# the sample, about 4.9 KB; "trimmed" for the 1.5 KB order of earlier runs),
# PORT (18090; the baseline PORT+1), KEEP=1 keeps the database afterwards, ALSO (a second pgbench script, e.g. an older
# version of intake.sql, run in every round after the first and reported beside it), SERVICE_BIN
# (another build of the service, e.g. of an older commit, to measure before and after).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

PORT=${PORT:-18090}
command -v pgbench >/dev/null || { echo "run.sh: pgbench is missing (Debian: apt-get install postgresql-client)" >&2; exit 1; }
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh
serve "$PORT"
server_pid=${pids[-1]}
(cd bench/baseline && go build -o ../../bin/intake-baseline .)
serve_baseline $((PORT + 1))
baseline_pid=${pids[-1]}
WARMUP=${WARMUP:-5s}
loadgen "$PORT" -c "$CLIENTS" -d "$WARMUP" >/dev/null
loadgen $((PORT + 1)) -c "$CLIENTS" -d "$WARMUP" >/dev/null

echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $SKUS SKUs, $LINES lines per order ($PAYLOAD), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
intake_rates=() ratios=() also_ratios=() pg_ratios=() bare_ratios=() bare_pgbench_ratios=()
for round in $(seq "$ROUNDS"); do
	vacuum
	out=$(loadgen "$PORT" -c "$CLIENTS" -d "$DURATION" -pid "$server_pid" ${pg_pid:+-pg-pid "$pg_pid" -pg-db "$DB"})
	rate=$(field throughput "$out")
	failed=$(field failed "$out")
	intake_pg=$(field pg_cpu_us_per_order "$out") intake_pg_server=$(field pg_server_cpu_us_per_order "$out")
	vacuum
	bare=$(loadgen $((PORT + 1)) -c "$CLIENTS" -d "$DURATION" -pid "$baseline_pid" ${pg_pid:+-pg-pid "$pg_pid" -pg-db "$DB"})
	bare_rate=$(field throughput "$bare")
	bare_ratios+=("$(awk -v a="$rate" -v b="$bare_rate" 'BEGIN { printf "%.2f", a / b }')")
	pgbench_run bench/intake/intake.sql
	ratio=$(awk -v a="$rate" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')
	bare_pgbench_ratios+=("$(awk -v a="$bare_rate" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')")
	same_tps=$tps same_pg=$pg_us same_pg_server=$pg_server_us
	pgbench_run bench/intake/minimal.sql
	minimal_tps=$tps minimal_pg=$pg_us minimal_pg_server=$pg_server_us
	intake_rates+=("$rate") ratios+=("$ratio")
	pg=""
	if [[ -n $intake_pg && -n $minimal_pg ]]; then
		pg_ratios+=("$(awk -v a="$intake_pg" -v b="$minimal_pg" 'BEGIN { printf "%.2f", a / b }')")
		pg=$(printf ' | PostgreSQL CPU per order, its backends (whole server): intake %.0f µs (%.0f), intake.sql %s µs (%s), minimal.sql %s µs (%s) at %.1f tps, ratio %s' \
			"$intake_pg" "$intake_pg_server" "$same_pg" "$same_pg_server" "$minimal_pg" "$minimal_pg_server" "$minimal_tps" "${pg_ratios[-1]}")
	fi
	also=""
	if [[ -n ${ALSO:-} ]]; then
		pgbench_run "$ALSO"
		also_ratios+=("$(awk -v a="$rate" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')")
		also=$(printf ' | %s: %.1f tps, ratio %s, PostgreSQL %s µs' "$ALSO" "$tps" "${also_ratios[-1]}" "$pg_us")
	fi
	bare_pg=""
	[[ -z $(field pg_cpu_us_per_order "$bare") ]] ||
		bare_pg=$(printf ', PostgreSQL %.0f µs (%.0f)' "$(field pg_cpu_us_per_order "$bare")" "$(field pg_server_cpu_us_per_order "$bare")")
	printf 'round %d: intake %.1f orders/s (%s failed, p50 %s ms, p99 %s ms; CPU per order: server %.0f µs, load generator %.0f µs) | pgbench intake.sql %.1f tps | ratio %s%s%s | baseline %.1f orders/s (%s failed; CPU per order: baseline %.0f µs%s), ratio intake/baseline %s\n' \
		"$round" "$rate" "$failed" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field server_cpu_us_per_order "$out")" \
		"$(field cpu_us_per_order "$out")" "$same_tps" "$ratio" "$pg" "$also" \
		"$bare_rate" "$(field failed "$bare")" "$(field server_cpu_us_per_order "$bare")" "$bare_pg" "${bare_ratios[-1]}"
done
best=$(printf '%s\n' "${intake_rates[@]}" | sort -g | tail -1)
half=$(awk -v b="$best" 'BEGIN { printf "%.0f", b / 2 }')
echo "median ratio intake/pgbench: $(median "${ratios[@]}") (target ≥ 0.80)${ALSO:+; against $ALSO: $(median "${also_ratios[@]}")}"
echo "median ratio intake/baseline: $(median "${bare_ratios[@]}") (rounds ${bare_ratios[*]}); baseline/pgbench: $(median "${bare_pgbench_ratios[@]}") (what a bare net/http + pgx handler reaches)"
((${#pg_ratios[@]} == 0)) ||
	echo "median ratio of PostgreSQL's CPU per order, intake/minimal.sql: $(median "${pg_ratios[@]}") (rounds ${pg_ratios[*]}; target ≤ 1.3)"
out=$(loadgen "$PORT" -c $((CLIENTS * 4)) -d "$DURATION" -rate "$half")
printf 'open loop at %s orders/s (half the best rate): %s ok, %s failed, p50 %s ms, p99 %s ms, p99.9 %s ms (target p99 ≤ 25 ms)\n' \
	"$half" "$(field ok "$out")" "$(field failed "$out")" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field p999_ms "$out")"
