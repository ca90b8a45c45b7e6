# bench/intake/setup.sh — sourced by run.sh and tracing.sh: builds the server and the load generator,
# makes the benchmark's database (fulfillment_bench_intake, dropped and made anew) on the server
# scripts/pg.sh finds, seeds products and an API key, and defines
#   serve PORT [VAR=VALUE...]   start `fulfillment serve` on 127.0.0.1:PORT, wait until ready
#   serve_baseline PORT         start bin/intake-baseline (bench/baseline, built by the caller) there
#   loadgen PORT [FLAGS...]     one run of the load generator against it (JSON result)
#   field NAME JSON             a number of that result
#   vacuum                      VACUUM the benchmark's database
#   pgbench_run SCRIPT [ARGS]   one pgbench run of SCRIPT (more pgbench ARGS, e.g. -D n=…); sets tps, pg_us and pg_server_us
#   median N...                 the median of numbers
# and pg_pid, PostgreSQL's postmaster (empty when it is not a process of this machine).
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
	# Rate limits out of the way of the load (one organization, one warehouse); a caller's
	# VAR=VALUE after them wins.
	env HTTP_ADDR="127.0.0.1:$port" RATE_LIMIT=1000000/s RATE_LIMIT_BURST=1000000 "$@" "$svc" serve 2>".tmp/bench-intake-server-$port.log" &
	started "$port" server -f "/readyz"
}

serve_baseline() { # serve_baseline PORT: the bare net/http + pgx server of bench/baseline, on the same database
	local port=$1
	# GOGC: the garbage collector's target `fulfillment serve` sets itself (bootstrap.ServeGCPercent),
	# so that the two servers differ by their code only.
	GOGC=400 bin/intake-baseline -dsn "$bench_url" -org org_bench -addr "127.0.0.1:$port" 2>".tmp/bench-intake-baseline-$port.log" &
	started "$port" baseline -s "/" # it has no /readyz: any answer will do
}

started() { # started PORT NAME CURL_FLAG PATH: note the last background process, wait until PATH answers
	local port=$1 name=$2
	pids+=($!)
	for _ in $(seq 100); do
		curl -s "$3" -o /dev/null "http://127.0.0.1:$port$4" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "bench: the $name on :$port did not get ready" >&2
	cat ".tmp/bench-intake-$name-$port.log" >&2
	exit 1
}

loadgen() { # loadgen PORT [FLAGS...]
	local port=$1
	shift
	bin/intake-loadgen -url "http://127.0.0.1:$port" -skus "$SKUS" -lines "$LINES" -payload "$PAYLOAD" -json "$@"
}

# PostgreSQL's postmaster: the parent of the server's checkpointer, when that is a process of
# this machine (empty otherwise: PostgreSQL's CPU is then not reported).
pg_pid=$(psql -X -At "$bench_url" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null || true)
if [[ $pg_pid =~ ^[0-9]+$ && $(cat "/proc/$pg_pid/comm" 2>/dev/null) == postgres ]]; then
	pg_pid=$(awk '{ print $4 }' "/proc/$pg_pid/stat")
	[[ $(cat "/proc/$pg_pid/comm" 2>/dev/null) == postgres ]] || pg_pid=""
else
	pg_pid=""
fi

# vacuum: the benchmark's tables vacuumed before each phase, as autovacuum would keep them (it may be
# off, as on the project's development machine): each phase, the intake's or pgbench's, then starts
# from the same state instead of paying for the dead row versions the phases before it left, the
# stock rows' above all (every order updates three).
vacuum() { psql -X -q "$bench_url" -c VACUUM; }
pgbench_run() { # pgbench_run SCRIPT [ARGS...]: sets tps, pg_us and pg_server_us (PostgreSQL's CPU µs per transaction: the
	# benchmark database's backends, the whole server; "" when unknown)
	local out n watcher cpu
	vacuum
	if [[ -n $pg_pid ]]; then
		bin/intake-loadgen -watch-pg -pg-pid "$pg_pid" -pg-db "$DB" >.tmp/bench-intake-pgcpu &
		watcher=$!
	fi
	out=$(pgbench -n -M prepared -c "$CLIENTS" -j 2 -T "$secs" -D org=org_bench -D wh=wh_bench -D skus="$SKUS" \
		-f "$1" "${@:2}" "$bench_url" 2>&1)
	tps=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' <<<"$out")
	n=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' <<<"$out")
	pg_us="" pg_server_us=""
	if [[ -n $pg_pid ]]; then
		sleep 0.2 # pgbench's backends end after it: the whole server's figure waits until they are reaped
		kill -TERM "$watcher" && wait "$watcher"
		read -r -a cpu <.tmp/bench-intake-pgcpu
		if ((${n:-0} > 0)); then
			pg_us=$(awk -v c="${cpu[0]}" -v n="$n" 'BEGIN { printf "%.0f", c / n }')
			pg_server_us=$(awk -v c="${cpu[1]}" -v n="$n" 'BEGIN { printf "%.0f", c / n }')
		fi
	fi
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
