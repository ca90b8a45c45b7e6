# bench/intake/setup.sh — sourced by run.sh and tracing.sh: builds the server and the load generator,
# makes the benchmark's database (fulfillment_bench_intake, dropped and made anew) on the server
# scripts/pg.sh finds, seeds products and an API key, and defines
#   serve PORT [VAR=VALUE...]   start `fulfillment serve` on 127.0.0.1:PORT, wait until ready
#   loadgen PORT [FLAGS...]     one run of the load generator against it (JSON result)
#   field NAME JSON             a number of that result
# Everything it starts is stopped on exit (KEEP=1 keeps the database). SERVICE_BIN runs another build
# of the service (e.g. of an older commit) instead of building this one.
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-15s}
ROUNDS=${ROUNDS:-5}
SKUS=${SKUS:-1000}
LINES=${LINES:-3}
PAYLOAD=${PAYLOAD:-docs/samples/orders-create.json}
DB=${BENCH_DB:-fulfillment_bench_intake} # bench/replay uses one of its own
secs=${DURATION%s}

command -v psql >/dev/null || { echo "bench: psql is missing (Debian: apt-get install postgresql-client)" >&2; exit 1; }
pg_env="$(scripts/pg.sh)"
eval "$pg_env"
admin=$TEST_DATABASE_URL
bench_url=$(printf '%s' "$admin" | sed -E "s#(//[^/]*)/[^?]*#\1/$DB#")
field() { sed -nE "s/.*\"$1\":([0-9.e+-]+).*/\1/p" <<<"$2"; }

mkdir -p .tmp bin
svc=${SERVICE_BIN:-bin/fulfillment}
[[ -n ${SERVICE_BIN:-} ]] || go build -o bin/fulfillment ./cmd/fulfillment
go build -o bin/intake-loadgen ./bench/intake

psql -q "$admin" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
export DATABASE_URL=$bench_url
export AUTH_SIGNING_KEY=bench-intake-signing-key-0123456789abcdef
export OTEL_TRACES_EXPORTER=none LOG_LEVEL=warn ENVIRONMENT=sandbox
"$svc" migrate up >/dev/null
bin/intake-loadgen -print-fixture -skus "$SKUS" >.tmp/bench-intake-fixture.json
"$svc" seed --file .tmp/bench-intake-fixture.json >/dev/null

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
	[[ ${KEEP:-} == 1 ]] || psql -q "$admin" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" || true
}
trap cleanup EXIT

serve() { # serve PORT [VAR=VALUE...]
	local port=$1
	shift
	env HTTP_ADDR="127.0.0.1:$port" "$@" "$svc" serve 2>".tmp/bench-intake-server-$port.log" &
	pids+=($!)
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "bench: the server on :$port did not get ready" >&2
	cat ".tmp/bench-intake-server-$port.log" >&2
	exit 1
}

loadgen() { # loadgen PORT [FLAGS...]
	local port=$1
	shift
	bin/intake-loadgen -url "http://127.0.0.1:$port" -skus "$SKUS" -lines "$LINES" -payload "$PAYLOAD" -json "$@"
}
