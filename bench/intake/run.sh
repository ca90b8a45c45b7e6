#!/usr/bin/env bash
# bench/intake/run.sh — the order intake benchmark of docs/benchmarks/intake.md.
#
# Sets up a database of its own (fulfillment_bench_intake, dropped and made
# anew) on the server scripts/pg.sh finds, seeds products and an API key,
# starts `fulfillment serve` on it, then alternates ROUNDS times:
#   - the load generator (bench/intake) delivering distinct valid orders with
#     CLIENTS concurrent clients for DURATION (closed loop: the maximum rate);
#   - pgbench running bench/intake/intake.sql, the equivalent SQL transaction,
#     with the same CLIENTS, -M prepared, for DURATION;
# and prints each pair's ratio, with the CPU time per order of the server and of the load
# generator. Last, the load generator runs open loop at
# half the best intake rate measured and prints p50/p99/p99.9.
#
# Knobs (environment): CLIENTS (8), DURATION (15s), ROUNDS (5), SKUS (1000),
# LINES (3), PAYLOAD (docs/samples/orders-create.json: every order is a copy of
# the sample, about 4.9 KB; "trimmed" for the 1.5 KB order of earlier runs),
# PORT (18090), KEEP=1 keeps the database afterwards, ALSO (a second pgbench script, e.g. an older
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

echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $SKUS SKUs, $LINES lines per order ($PAYLOAD), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
pgbench_tps() { # pgbench_tps SCRIPT
	pgbench -n -M prepared -c "$CLIENTS" -j 2 -T "$secs" -D org=org_bench -D wh=wh_bench -D skus="$SKUS" \
		-f "$1" "$bench_url" 2>&1 | sed -nE 's/^tps = ([0-9.]+).*/\1/p'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
intake_rates=() ratios=() also_ratios=()
for round in $(seq "$ROUNDS"); do
	out=$(loadgen "$PORT" -c "$CLIENTS" -d "$DURATION" -pid "$server_pid")
	rate=$(field throughput "$out")
	failed=$(field failed "$out")
	tps=$(pgbench_tps bench/intake/intake.sql)
	ratio=$(awk -v a="$rate" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')
	intake_rates+=("$rate") ratios+=("$ratio")
	also=""
	if [[ -n ${ALSO:-} ]]; then
		also_tps=$(pgbench_tps "$ALSO")
		also_ratios+=("$(awk -v a="$rate" -v b="$also_tps" 'BEGIN { printf "%.2f", a / b }')")
		also=$(printf ' | %s: %.1f tps, ratio %s' "$ALSO" "$also_tps" "${also_ratios[-1]}")
	fi
	printf 'round %d: intake %.1f orders/s (%s failed, p50 %s ms, p99 %s ms; CPU per order: server %.0f µs, load generator %.0f µs) | pgbench %.1f tps | ratio %s%s\n' \
		"$round" "$rate" "$failed" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field server_cpu_us_per_order "$out")" \
		"$(field cpu_us_per_order "$out")" "$tps" "$ratio" "$also"
done
best=$(printf '%s\n' "${intake_rates[@]}" | sort -g | tail -1)
half=$(awk -v b="$best" 'BEGIN { printf "%.0f", b / 2 }')
echo "median ratio intake/pgbench: $(median "${ratios[@]}") (target ≥ 0.80)${ALSO:+; against $ALSO: $(median "${also_ratios[@]}")}"
out=$(loadgen "$PORT" -c $((CLIENTS * 4)) -d "$DURATION" -rate "$half")
printf 'open loop at %s orders/s (half the best rate): %s ok, %s failed, p50 %s ms, p99 %s ms, p99.9 %s ms (target p99 ≤ 25 ms)\n' \
	"$half" "$(field ok "$out")" "$(field failed "$out")" "$(field p50_ms "$out")" "$(field p99_ms "$out")" "$(field p999_ms "$out")"
