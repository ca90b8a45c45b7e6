# bench/intake/jaeger.sh — sourced by tracing.sh and instructions.sh, which export traces to a real
# Jaeger (scripts/jaeger.sh, in memory):
#   start_jaeger PORT LOG   build Jaeger if it is not yet, start it in the background with its
#                           OTLP/HTTP receiver on 127.0.0.1:PORT (query APIs on PORT+1 and PORT+2)
#                           and its output in LOG, set jaeger_pid, and return once the receiver
#                           answers; if it does not within 20 s, stop it and fail.
start_jaeger() {
	local port=$1 log=$2
	scripts/tools.sh jaeger >/dev/null # the first run builds it: not part of the 20 s
	JAEGER_OTLP_ADDR=127.0.0.1:$port JAEGER_QUERY_ADDR=127.0.0.1:$((port + 1)) \
		JAEGER_QUERY_GRPC_ADDR=127.0.0.1:$((port + 2)) scripts/jaeger.sh 2>"$log" &
	jaeger_pid=$!
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port/v1/traces" && return 0
		sleep 0.2
	done
	echo "bench: Jaeger did not answer on :$port within 20 s; its log:" >&2
	cat "$log" >&2
	kill "$jaeger_pid" 2>/dev/null || true
	return 1
}
