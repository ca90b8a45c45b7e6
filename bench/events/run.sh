#!/usr/bin/env bash
# bench/events/run.sh — the events benchmark of docs/benchmarks.md (docs/events.md): what the
# transactional outbox costs the order intake, and how fast and how late the relay publishes.
#
# On the intake benchmark's setup (bench/intake/setup.sh: its own database, fulfillment_bench_events,
# products and an API key; the same load generator) it starts a private nats-server with JetStream
# on NATS_PORT (store under .tmp, removed afterwards) and two servers on the one database: events
# off on PORT, events on (EVENTS_NATS_URL = that broker) on PORT+2. After a warm-up of both, it
# alternates ROUNDS times, each for DURATION, the same closed-loop load (CLIENTS clients, distinct
# valid orders):
#   - off: the intake without events;
#   - on: the intake with events — one event per order, written by the acceptance's own statement —
#     and the relay publishing them meanwhile; its lag (from an event's write, inside the order's
#     transaction, to the broker's acknowledgement) is read from the server's histogram
#     fulfillment_events_publish_lag_seconds (bench/events/main.go: p50 and p99 of the phase);
# and prints each round's rates, the ratio on/off, and the CPU time of each process measured apart over
# the phase and the second after it (bin/events-lag -watch-cpu, bench/internal/proccpu): per accepted
# order, the service's (on: its relay included) and PostgreSQL's (the benchmark database's backends:
# the servers' pools and the relay's; the whole server's beside it), and per event published, each
# nats-server's; then the medians of the ratios on/off. Then `nats bench js pub async` (the NATS CLI,
# scripts/tools.sh nats) publishes to a stream of the same replicas on the same brokers, messages of the
# events' mean size with a Nats-Msg-Id, and each server's CPU per message is printed beside. Last, the relay's own
# throughput: the broker is stopped, the intake runs for DRAIN_LOAD with events on (the outbox
# grows), the broker is started again, and the time from the first event published to the outbox
# empty gives the relay's rate to the local JetStream.
#
# With NATS_SERVERS=3 the broker is a JetStream cluster of three nats-server processes on loopback
# (client ports NATS_PORT, +1, +2; route ports +10, +11, +12), the server with events on is given
# all three and EVENTS_STREAM_REPLICAS=3: every event is stored by a majority of the three before it
# is acknowledged. For the backlog, the three are stopped and started again together.
#
# Knobs (environment): those of bench/intake/run.sh (CLIENTS 8, DURATION 15s, ROUNDS 5, WARMUP 5s,
# SKUS, LINES, PAYLOAD), PORT (18190), NATS_PORT (14290), NATS_SERVERS (1 or 3), DRAIN_LOAD (10s),
# NATSBENCH_MSGS (20000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

PORT=${PORT:-18190}
NATS_PORT=${NATS_PORT:-14290}
DRAIN_LOAD=${DRAIN_LOAD:-10s}
NATS_SERVERS=${NATS_SERVERS:-1}
[[ $NATS_SERVERS == 1 || $NATS_SERVERS == 3 ]] || { echo "run.sh: NATS_SERVERS is 1 or 3" >&2; exit 1; }
export BENCH_DB=fulfillment_bench_events
nats_bin=$(command -v nats-server || echo /usr/sbin/nats-server)
[[ -x $nats_bin ]] || { echo "run.sh: nats-server is missing (Debian: apt-get install nats-server; scripts/nats.sh)" >&2; exit 1; }
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh
go build -o bin/events-lag ./bench/events

nats_dir=.tmp/bench-events-nats
rm -rf "$nats_dir" && mkdir -p "$nats_dir"
nats_pids=()
nats_urls=()
for i in $(seq 0 $((NATS_SERVERS - 1))); do nats_urls+=("nats://127.0.0.1:$((NATS_PORT + i))"); done
nats_url=$(IFS=,; echo "${nats_urls[*]}")
nats_start() {
	nats_pids=()
	local i args
	for i in $(seq 0 $((NATS_SERVERS - 1))); do
		args=()
		if ((NATS_SERVERS > 1)); then
			local routes=() j
			for j in $(seq 0 $((NATS_SERVERS - 1))); do
				((j == i)) || routes+=("nats://127.0.0.1:$((NATS_PORT + 10 + j))")
			done
			args=(-n "n$i" --cluster_name bench --cluster "nats://127.0.0.1:$((NATS_PORT + 10 + i))"
				--routes "$(IFS=,; echo "${routes[*]}")")
		fi
		"$nats_bin" -a 127.0.0.1 -p "$((NATS_PORT + i))" -js -sd "$nats_dir/store$i" -l "$nats_dir/nats-server$i.log" "${args[@]}" &
		nats_pids+=($!)
	done
	for i in $(seq 0 $((NATS_SERVERS - 1))); do
		local up=""
		for _ in $(seq 100); do
			if (exec 9<>"/dev/tcp/127.0.0.1/$((NATS_PORT + i))") 2>/dev/null; then up=1 && break; fi
			sleep 0.1
		done
		[[ -n $up ]] || { echo "run.sh: nats-server $i did not start (log: $nats_dir/nats-server$i.log)" >&2; exit 1; }
	done
}
nats_stop() {
	local p
	for p in "${nats_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${nats_pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'nats_stop; rm -rf "$nats_dir"; cleanup' EXIT
nats_start

serve "$PORT" EVENTS_NATS_URL=
off_pid=${pids[-1]}
serve $((PORT + 2)) EVENTS_NATS_URL="$nats_url" EVENTS_STREAM_REPLICAS="$NATS_SERVERS"
on_pid=${pids[-1]}
metrics="http://127.0.0.1:$((PORT + 2))/metrics"
pending() { psql -X -At "$bench_url" -c "SELECT count(*) FROM event_outbox"; }
WARMUP=${WARMUP:-5s}
loadgen "$PORT" -c "$CLIENTS" -d "$WARMUP" >/dev/null
loadgen $((PORT + 2)) -c "$CLIENTS" -d "$WARMUP" >/dev/null

# cpu_watch PROCS / cpu_done: bin/events-lag -watch-cpu around a phase — the CPU time of each process of
# PROCS (name=pid,…) and of PostgreSQL: the benchmark database's backends (the servers' pools and the
# relay's) and the whole server (other databases' work included: the machine may be shared).
cpu_watch() {
	rm -f .tmp/bench-events-cpu.ready
	bin/events-lag -watch-cpu -procs "$1" ${pg_pid:+-pg-pid "$pg_pid" -pg-db "$DB"} >.tmp/bench-events-cpu 2>.tmp/bench-events-cpu.ready &
	watcher=$!
	until grep -q ready .tmp/bench-events-cpu.ready 2>/dev/null; do sleep 0.02; done
}
cpu_done() { kill -TERM "$watcher" && wait "$watcher"; } # then the figures are in .tmp/bench-events-cpu
brokers=""
for i in "${!nats_pids[@]}"; do brokers+=",nats$i=${nats_pids[$i]}"; done
# phase PORT PID: one measured phase of the load against the server on PORT (process PID), then 1 s for
# the relay's last events (the same pause in both modes); prints the load generator's JSON and the CPU's
# on one line.
phase() {
	local res
	cpu_watch "service=$2$brokers"
	res=$(loadgen "$1" -c "$CLIENTS" -d "$DURATION")
	sleep 1
	cpu_done
	echo "$res $(cat .tmp/bench-events-cpu)"
}
per() { awk -v a="$1" -v n="$2" 'BEGIN { printf "%.0f", (n > 0 ? a / n : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

echo "broker: $NATS_SERVERS nats-server(s), stream replicas $NATS_SERVERS"
echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $SKUS SKUs, $LINES lines per order ($PAYLOAD), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=() svc_ratios=() pg_ratios=() both_ratios=()
for round in $(seq "$ROUNDS"); do
	vacuum
	off=$(phase "$PORT" "$off_pid")
	vacuum
	bin/events-lag -metrics "$metrics" -save .tmp/bench-events-lag.json
	on=$(phase $((PORT + 2)) "$on_pid")
	lag=$(bin/events-lag -metrics "$metrics" -since .tmp/bench-events-lag.json)
	off_rate=$(field throughput "$off") on_rate=$(field throughput "$on")
	ratio=$(ratio "$on_rate" "$off_rate")
	ratios+=("$ratio")
	published=$(field published "$lag")
	printf 'round %d: off %s orders/s (p99 %s ms, failed %s) | on %s orders/s (p99 %s ms, failed %s) | on/off %s | relay: %s published, lag p50 %.1f ms, p99 %.1f ms, %s waiting after 1 s\n' \
		"$round" "$off_rate" "$(field p99_ms "$off")" "$(field failed "$off")" "$on_rate" "$(field p99_ms "$on")" "$(field failed "$on")" \
		"$ratio" "$published" "$(field p50_ms "$lag")" "$(field p99_ms "$lag")" "$(pending)"
	# CPU µs per accepted order: the service's (with events on, its relay included) and PostgreSQL's (the
	# database's backends: the servers' pools and the relay's).
	off_ok=$(field ok "$off") on_ok=$(field ok "$on")
	svc_off=$(per "$(field service_us "$off")" "$off_ok") svc_on=$(per "$(field service_us "$on")" "$on_ok")
	pg_off=$(per "$(field pg_db_us "$off")" "$off_ok") pg_on=$(per "$(field pg_db_us "$on")" "$on_ok")
	svc_ratios+=("$(ratio "$svc_on" "$svc_off")") pg_ratios+=("$(ratio "$pg_on" "$pg_off")")
	both_ratios+=("$(ratio $((svc_on + pg_on)) $((svc_off + pg_off)))")
	line=$(printf '  CPU µs per accepted order: service %s off, %s on (%s×) | PostgreSQL %s off, %s on (%s×) | both %s×' \
		"$svc_off" "$svc_on" "${svc_ratios[-1]}" "$pg_off" "$pg_on" "${pg_ratios[-1]}" "${both_ratios[-1]}")
	line+=" | PostgreSQL, whole server: $(per "$(field pg_server_us "$off")" "$off_ok") off, $(per "$(field pg_server_us "$on")" "$on_ok") on"
	line+=" | per event published:"
	for i in "${!nats_pids[@]}"; do line+=" nats$i $(per "$(field "nats${i}_us" "$on")" "$published")"; done
	echo "$line"
done
echo "median on/off: throughput $(median "${ratios[@]}") (target ≥ 0.9); CPU per accepted order: service $(median "${svc_ratios[@]}"), PostgreSQL $(median "${pg_ratios[@]}"), both $(median "${both_ratios[@]}") (target ≤ 1.15)"

# `nats bench` on the same brokers: JetStream's own publishing, asynchronous, to a stream of the same
# replicas, NATSBENCH_MSGS messages of the events' mean size with a Nats-Msg-Id each (as the relay
# sends them), in batches of 100 (about the relay's under load); each server's CPU per message beside
# the relay's per event above.
NATSBENCH_MSGS=${NATSBENCH_MSGS:-20000}
nats_cli=$(scripts/tools.sh nats)
size=$("$nats_cli" --server "$nats_url" stream info FULFILLMENT --json | jq '.state.bytes / .state.messages | floor')
cpu_watch "${brokers#,}"
bench_out=$("$nats_cli" --server "$nats_url" bench js pub async natsbench.events --create --purge --stream NATSBENCH \
	--replicas "$NATS_SERVERS" --dedup --dedupwindow 10m --batch 100 --msgs "$NATSBENCH_MSGS" --size "$size" --no-progress 2>&1)
cpu_done
cpu=$(cat .tmp/bench-events-cpu)
"$nats_cli" --server "$nats_url" stream rm NATSBENCH --force >/dev/null
line="nats bench js pub async: $NATSBENCH_MSGS messages of $size B, replicas $NATS_SERVERS: $(grep -m1 -oE '[0-9,]+ msgs/sec' <<<"$bench_out") | CPU µs per message:"
for i in "${!nats_pids[@]}"; do line+=" nats$i $(per "$(field "nats${i}_us" "$cpu")" "$NATSBENCH_MSGS")"; done
echo "$line"

# The relay's throughput: a backlog made with the broker away, drained when it returns.
nats_stop
sleep 1
loadgen $((PORT + 2)) -c "$CLIENTS" -d "$DRAIN_LOAD" >/dev/null
backlog=$(pending)
nats_start
# From the first event published (the relay notices the broker within its back-off, up to 5 s) to
# the last.
while (($(pending) >= backlog)); do sleep 0.02; done
start=$(date +%s.%N) left=$(pending)
while (($(pending) > 0)); do sleep 0.02; done
end=$(date +%s.%N)
awk -v b="$backlog" -v n="$left" -v s="$start" -v e="$end" \
	'BEGIN { printf "relay: a backlog of %d events made with the broker away; after its return, %d of them published in %.2f s: %.0f events/s\n", b, n, e - s, n / (e - s) }'
