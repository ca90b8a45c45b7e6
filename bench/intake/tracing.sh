#!/usr/bin/env bash
# bench/intake/tracing.sh — what tracing costs the order intake (docs/benchmarks/intake.md).
#
# Three servers on one benchmark database: no export (OTEL_TRACES_EXPORTER=none: spans are made
# for the trace IDs, nothing leaves), 10 % of traces sampled, and every trace sampled; the two
# that sample export through the batch span processor over OTLP/HTTP to a real Jaeger v2
# (scripts/jaeger.sh, in memory). The load generator runs the same closed loop against each in
# turn, ROUNDS times, and the script prints each round and the median throughput ratio of each
# to no export (targets: ≥ 0.95 at 10 %, ≥ 0.85 at 100 %).
#
# Knobs: as run.sh (CLIENTS, DURATION, ROUNDS, SKUS, LINES, PAYLOAD), and PORTS (18091 18092
# 18093), JAEGER_PORT (14318).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

read -r p_none p_10 p_100 <<<"${PORTS:-18091 18092 18093}"
JAEGER_PORT=${JAEGER_PORT:-14318}
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh

# shellcheck source=bench/intake/jaeger.sh
source bench/intake/jaeger.sh
start_jaeger "$JAEGER_PORT" .tmp/bench-jaeger.log
pids+=("$jaeger_pid")
otlp=(OTEL_TRACES_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$JAEGER_PORT OTEL_TRACES_SAMPLER=parentbased_traceidratio)
serve "$p_none"
serve "$p_10" "${otlp[@]}" OTEL_TRACES_SAMPLER_ARG=0.1
serve "$p_100" "${otlp[@]}" OTEL_TRACES_SAMPLER_ARG=1

echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $LINES lines per order ($PAYLOAD), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
r10=() r100=()
rate() { field throughput "$(loadgen "$1" -c "$CLIENTS" -d "$DURATION")"; }
for round in $(seq "$ROUNDS"); do
	# Each round starts with another server, so that none gains from going first or last.
	case $((round % 3)) in
	1) none=$(rate "$p_none") ten=$(rate "$p_10") all=$(rate "$p_100") ;;
	2) ten=$(rate "$p_10") all=$(rate "$p_100") none=$(rate "$p_none") ;;
	0) all=$(rate "$p_100") none=$(rate "$p_none") ten=$(rate "$p_10") ;;
	esac
	r10+=("$(awk -v a="$ten" -v b="$none" 'BEGIN { printf "%.3f", a / b }')")
	r100+=("$(awk -v a="$all" -v b="$none" 'BEGIN { printf "%.3f", a / b }')")
	printf 'round %d: none %.1f, 10%% %.1f (%s), 100%% %.1f (%s) orders/s\n' "$round" "$none" "$ten" "${r10[-1]}" "$all" "${r100[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "median throughput ratio to no export: 10% sampled $(median "${r10[@]}") (target ≥ 0.95), every trace $(median "${r100[@]}") (target ≥ 0.85)"
