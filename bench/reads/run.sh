#!/usr/bin/env bash
# bench/reads/run.sh — the read benchmark of issue 13 in one command (docs/benchmarks/reads.md):
# the service and the bare net/http + pgx baseline (bench/baseline) serve GET /v0/invoices and
# GET /v0/invoices/{id} from the same database with the same SQL; every benchmark request is
# first checked to get the same answer, byte for byte, from both; then the same closed loop of
# clients measures each, alternately, round after round, and the ratios are printed.
#
#   bench/reads/run.sh                                   # 1,000,000 invoices (generated once, kept)
#   N=10000 CLIENTS=8 DURATION=10s ROUNDS=5 bench/reads/run.sh
#   SERVICE_BIN=/path/to/other/fulfillment bench/reads/run.sh   # e.g. a build of an older commit
#   INSTRUCTIONS=1 N=10000 bench/reads/run.sh   # instructions per request instead, under callgrind
#   LIMITS=redis N=10000 bench/reads/run.sh      # the rate limits' cost: the service with its buckets in
#                                                # a private redis-server against the same service with
#                                                # them in memory (in place of the bare baseline)
#
# With INSTRUCTIONS=1 both servers run under valgrind's callgrind (one P, no asynchronous
# preemption, which callgrind's signal handling does not follow), and `invoices instructions`
# counts the user-space instructions each runs per request, the requests sent one after
# another: a figure that hardly moves with the machine's other load.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

N=${N:-1000000}
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
ROUNDS=${ROUNDS:-5}
ORG=org_bench
if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pg_env="$(scripts/pg.sh)"
	eval "$pg_env"
fi
# The benchmark databases of bench/invoices/run.sh, on the same server as the test databases.
case $N in
1000000) db=fulfillment_bench_1m ;;
10000) db=fulfillment_bench_10k ;;
*) db=fulfillment_bench_$N ;;
esac
u=${TEST_DATABASE_URL%%\?*}
DSN="${u%/*}/$db${TEST_DATABASE_URL#"$u"}"

work=.tmp/bench-reads
mkdir -p "$work"
go build -o "$work/invoices" ./bench/invoices
if [[ -n ${SERVICE_BIN:-} ]]; then
	cp "$SERVICE_BIN" "$work/fulfillment"
else
	go build -o "$work/fulfillment" ./cmd/fulfillment
fi
(cd bench/baseline && go build -o "../../$work/baseline" .)

"$work/invoices" gen -dsn "$DSN" -org "$ORG" -n "$N"

key=bench-signing-key-0123456789abcdef-0123456789
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait' EXIT
under=(env)
tries=100
if [[ -n ${INSTRUCTIONS:-} ]]; then
	valgrind=$(scripts/tools.sh valgrind)
	rm -f "$work"/callgrind.out.*
	under=(env GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 "$valgrind" --tool=callgrind "--callgrind-out-file=$PWD/$work/callgrind.out.%p")
	tries=1200
fi
ready() { # ready PORT LOG
	for _ in $(seq "$tries"); do
		curl -fsS -o /dev/null "http://127.0.0.1:$1/$3" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "run.sh: the server on :$1 did not get ready; see $2" >&2
	exit 1
}
# Both with their defaults: the service's pool is DB_MAX_CONNS = 4 × GOMAXPROCS, as is the
# baseline's; the service logs each request (LOG_LEVEL=info) and traces nothing. The rate limits
# are far above the load of one organization, so every request is allowed and both answer alike.
serve() { # serve PORT LOG [VAR=VALUE...]: the service, its pid in $!
	local port=$1 log=$2
	shift 2
	env DATABASE_URL="$DSN" HTTP_ADDR="127.0.0.1:$port" AUTH_SIGNING_KEY=$key OTEL_TRACES_EXPORTER=none \
		RATE_LIMIT=1000000/s RATE_LIMIT_BURST=1000000 "$@" "${under[@]}" "$work/fulfillment" serve 2>"$log" &
}
redis=()
if [[ ${LIMITS:-} == redis ]]; then
	# A redis-server of the service's own on loopback, keeping nothing on disk.
	redis-server --port 18085 --bind 127.0.0.1 --save "" --appendonly no --logfile "$PWD/$work/redis.log" &
	pids+=($!)
	redis=(RATE_LIMIT_REDIS_URL=redis://127.0.0.1:18085/0)
fi
serve 18083 "$work/service.log" "${redis[@]}"
service_pid=$!
pids+=("$service_pid")
ready 18083 "$work/service.log" readyz
baseline_token=
if [[ ${LIMITS:-} == redis ]]; then
	grep -q 'shared through Redis' "$work/service.log" || { echo "run.sh: the service does not use Redis; see $work/service.log" >&2; exit 1; }
	# The baseline is the same service with its buckets in memory.
	serve 18084 "$work/baseline.log"
	baseline_pid=$!
	pids+=("$baseline_pid")
	ready 18084 "$work/baseline.log" readyz
else
	"${under[@]}" "$work/baseline" -dsn "$DSN" -org "$ORG" -addr 127.0.0.1:18084 2>"$work/baseline.log" &
	baseline_pid=$!
	pids+=("$baseline_pid")
	ready 18084 "$work/baseline.log" "v0/invoices?take=1"
fi
token=$(DATABASE_URL=$DSN AUTH_SIGNING_KEY=$key "$work/fulfillment" token mint --org "$ORG" --scopes invoices)
[[ ${LIMITS:-} == redis ]] && baseline_token=$token

echo "## Machine"
echo
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(psql "$DSN" -Atc 'SHOW server_version' 2>/dev/null || echo 'PostgreSQL'), $(go version | cut -d' ' -f3), $db, service $("$work/fulfillment" version 2>/dev/null || echo '?'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [[ -n ${INSTRUCTIONS:-} ]]; then
	"$work/invoices" instructions -service "http://127.0.0.1:18083,$token,$service_pid" \
		-baseline "http://127.0.0.1:18084,$baseline_token,$baseline_pid" -dumps "$work"
	exit
fi
"$work/invoices" reads -clients "$CLIENTS" -duration "$DURATION" -warmup "$WARMUP" -rounds "$ROUNDS" \
	-service "http://127.0.0.1:18083,$token,$service_pid" -baseline "http://127.0.0.1:18084,$baseline_token,$baseline_pid"
