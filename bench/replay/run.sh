#!/usr/bin/env bash
# bench/replay/run.sh — `fulfillment orders replay --all-failed` over many kept orders, against the
# intake's own rate on the same database (docs/benchmarks.md, "Replaying failed orders").
#
# Uses bench/intake/setup.sh (on a database of its own, fulfillment_bench_replay, made anew; its server and load
# generator), then:
#   1. the intake's rate: the load generator delivering distinct valid orders with CLIENTS clients
#      for DURATION (closed loop);
#   2. ORDERS failed orders of the same organization, as the intake keeps them: each a copy of PAYLOAD
#      (docs/samples/orders-create.json, ~5.7 KB) with its own id, one SKU of the organization picked at
#      random (as the load generator picks them, so that orders do not all queue on one stock row) and
#      one of MISSING (100) SKUs it lacks (receipt failed, unknown_skus, the body kept), written by one
#      SQL statement;
#   3. the missing product added, and `fulfillment orders replay --org … --all-failed --workers W`
#      timed for each W in WORKERS; between two runs the orders are made failed again.
# It checks that every order was replayed and made exactly one shipment.
#
# Knobs (environment): ORDERS (10000), MISSING (100), WORKERS ("8 4"), CLIENTS (8), DURATION (15s), KEEP=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

[[ -x /usr/bin/time ]] || { echo "run.sh: /usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 1; }
ORDERS=${ORDERS:-10000}
WORKERS=${WORKERS:-"8 4"}
PORT=${PORT:-18091}
ROUNDS=1
export BENCH_DB=fulfillment_bench_replay
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh
serve "$PORT"
server_pid=${pids[-1]}
org=org_bench
MISSING=${MISSING:-100}

echo "$ORDERS failed orders, workers $WORKERS, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(loadgen "$PORT" -c "$CLIENTS" -d "$DURATION" -pid "$server_pid")
intake=$(field throughput "$out")
printf 'intake: %.1f orders/s (%s clients, closed loop, p99 %s ms)\n' "$intake" "$CLIENTS" "$(field p99_ms "$out")"

# fail_all RUN: ORDERS orders of org_bench (the intake benchmark's organization, its warehouse and
# its products BENCH-00001…), with IDs of the run's own, each failed for want of one of MISSING
# products REPLAY-<run>-000… (its SKUs: one of the organization's, at random as the load generator
# picks them, and a missing one), its body kept, no shipment.
fail_all() {
	psql -q "$bench_url" -v run="$1" -v n="$ORDERS" -v skus="$SKUS" -v missing="$MISSING" -v body="$(cat "$PAYLOAD")" <<'SQL'
INSERT INTO order_receipts (organization_id, order_id, order_number, status, attempts, last_error, trace_id,
                            first_received_at, last_received_at, payload)
SELECT 'org_bench', 8000000000000000 + :run * 1000000000 + i, 1042, 'failed', 8, 'unknown_skus',
       '4bf92f3577b34da6a3ce929d0e0e4736', now(), now(),
       convert_to(replace(replace(replace(:'body',
           '"id": 5726128734520,', '"id": ' || (8000000000000000 + :run * 1000000000 + i) || ','),
           '"SOCK-MER-CH-4346"', '"BENCH-' || lpad((1 + floor(random() * :skus))::text, 5, '0') || '"'),
           '"KEY-LTH-01 "', '"REPLAY-' || :run || '-' || lpad((i % :missing)::text, 3, '0') || '"'), 'UTF8')
FROM generate_series(1, :n) AS i;
SQL
}

# fix RUN: the run's missing products added.
fix() {
	psql -q "$bench_url" -v run="$1" -v missing="$MISSING" <<'SQL'
INSERT INTO products (id, organization_id, sku, name)
SELECT 'prod_bench_replay_' || :run || '_' || i, 'org_bench', 'REPLAY-' || :run || '-' || lpad(i::text, 3, '0'), 'Replay product'
FROM generate_series(0, :missing - 1) AS i;
SQL
}

run=0
for w in $WORKERS; do
	run=$((run + 1))
	fail_all "$run"
	fix "$run"
	start=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o .tmp/bench-replay-cpu.txt "$svc" orders replay --org "$org" --all-failed --workers "$w" >.tmp/bench-replay-out.txt
	end=$(date +%s.%N)
	summary=$(tail -1 .tmp/bench-replay-out.txt)
	shipments=$(psql -tA "$bench_url" -c "SELECT count(DISTINCT source_order_id) || ' ' || count(*) FROM shipments WHERE organization_id = '$org' AND source_order_id / 1000000000 = 8000000 + $run")
	[[ $summary == "replayed $ORDERS: $ORDERS succeeded, 0 duplicate, 0 failed" && $shipments == "$ORDERS $ORDERS" ]] ||
		{ echo "replay: $summary; shipments (orders, rows): $shipments" >&2; exit 1; }
	rate=$(awk -v n="$ORDERS" -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", n / (e - s) }')
	cpu=$(awk -v n="$ORDERS" '{ printf "%.0f", ($1 + $2) * 1e6 / n }' .tmp/bench-replay-cpu.txt)
	printf 'replay --all-failed --workers %s: %s orders in %.1f s, %s orders/s, %s of the intake'"'"'s rate; the command'"'"'s CPU %s µs per order (%s)\n' \
		"$w" "$ORDERS" "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')" "$rate" \
		"$(awk -v a="$rate" -v b="$intake" 'BEGIN { printf "%.2f", a / b }')" "$cpu" "$summary"
done
