#!/usr/bin/env bash
# bench/ratelimit/run.sh — the rate limits in Redis benchmark of docs/benchmarks.md
# (docs/rate-limits.md): what keeping the buckets in Redis costs a list request, against keeping
# them in memory, and what one check costs Redis, beside redis-benchmark running the same script.
#
# On a small database of its own (fulfillment_bench_ratelimit: one organization, WAREHOUSES
# warehouses, seeded once) it starts a private redis-server on REDIS_PORT (nothing on disk) and
# two servers: buckets in memory on PORT, in that Redis on PORT+1, both with a limit far above the
# load (nothing is refused: a 429 counts as a failure). After a warm-up of both it alternates
# ROUNDS times, each for DURATION, the same open loop of RATE list requests per second
# (GET /v0/warehouses) against each, and prints each round's CPU time per request of the server
# (from /proc: user + system), the ratio Redis / memory, and Redis's CPU time per check (the
# redis-server's, per request of the Redis run; its CPU when idle, measured for 10 s before, is
# told too). The median ratio is the figure (target ≤ 1.1).
#
# Last, redis-benchmark sends the same check — EVALSHA of redis_rate's GCRA script
# (bench/ratelimit/gcra.lua, a byte-exact copy: the run checks that the Redis the service used
# holds a script of its SHA1) on the service's key — BENCH_CHECKS times from 8 connections, and
# the redis-server's CPU time per check in it is printed beside the service's.
#
# Knobs (environment): RATE (400), DURATION (10s), WARMUP (3s), ROUNDS (5), WAREHOUSES (10),
# BENCH_CHECKS (200000), PORT (18300), REDIS_PORT (18310).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

RATE=${RATE:-400}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-3s}
ROUNDS=${ROUNDS:-5}
WAREHOUSES=${WAREHOUSES:-10}
BENCH_CHECKS=${BENCH_CHECKS:-200000}
PORT=${PORT:-18300}
REDIS_PORT=${REDIS_PORT:-18310}
ORG=org_bench_rl
for bin in redis-server redis-cli redis-benchmark; do
	command -v "$bin" >/dev/null || { echo "run.sh: $bin is missing (Debian: apt-get install redis-server redis-tools)" >&2; exit 1; }
done
if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pg_env="$(scripts/pg.sh)"
	eval "$pg_env"
fi
u=${TEST_DATABASE_URL%%\?*}
DSN="${u%/*}/fulfillment_bench_ratelimit${TEST_DATABASE_URL#"$u"}"
ADMIN="${u%/*}/postgres${TEST_DATABASE_URL#"$u"}"

work=.tmp/bench-ratelimit
mkdir -p "$work"
go build -o "$work/fulfillment" ./cmd/fulfillment
go build -o "$work/load" ./bench/ratelimit
key=bench-signing-key-0123456789abcdef-0123456789
env_db=(env DATABASE_URL="$DSN" AUTH_SIGNING_KEY=$key)

# The database, seeded once (seed changes nothing the second time).
if [[ -z $(psql -X -At "$ADMIN" -c "SELECT 1 FROM pg_database WHERE datname = 'fulfillment_bench_ratelimit'") ]]; then
	psql -X -q "$ADMIN" -c "CREATE DATABASE fulfillment_bench_ratelimit"
fi
"${env_db[@]}" "$work/fulfillment" migrate up >/dev/null
python3 - "$ORG" "$WAREHOUSES" >"$work/fixture.json" <<'PY'
import json, sys
org, n = sys.argv[1], int(sys.argv[2])
wh = lambda i: {"id": f"wh_bench_rl_{i}", "name": f"Bench {i}", "description": None, "active": True,
    "address": {"name": f"Bench {i}", "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
                "state": "NJ", "countryCode": "US", "postalCode": "07102"},
    "contact": {"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
    "tags": [], "organizations": [org]}
print(json.dumps({"organizations": [{"id": org, "name": "Bench rate limits"}], "warehouses": [wh(i) for i in range(n)]}))
PY
"${env_db[@]}" "$work/fulfillment" seed --file "$work/fixture.json" >/dev/null
token=$("${env_db[@]}" "$work/fulfillment" token mint --org "$ORG" --scopes locations --ttl 24h)

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait' EXIT
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --logfile "$PWD/$work/redis.log" &
redis_pid=$!
pids+=("$redis_pid")
for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done
serve() { # serve PORT LOG [VAR=VALUE...]: the service, its pid in $!
	local port=$1 log=$2
	shift 2
	"${env_db[@]}" HTTP_ADDR="127.0.0.1:$port" OTEL_TRACES_EXPORTER=none \
		RATE_LIMIT=1000000/s RATE_LIMIT_BURST=1000000 "$@" "$work/fulfillment" serve 2>"$log" &
}
ready() { # ready PORT LOG
	for _ in $(seq 100); do
		curl -fsS -o /dev/null "http://127.0.0.1:$1/readyz" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "run.sh: the server on :$1 did not get ready; see $2" >&2
	exit 1
}
serve "$PORT" "$work/memory.log"
memory_pid=$!
pids+=("$memory_pid")
serve $((PORT + 1)) "$work/redis-service.log" RATE_LIMIT_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
redis_service_pid=$!
pids+=("$redis_service_pid")
ready "$PORT" "$work/memory.log"
ready $((PORT + 1)) "$work/redis-service.log"
grep -q 'shared through Redis' "$work/redis-service.log" || { echo "run.sh: the service does not use Redis; see $work/redis-service.log" >&2; exit 1; }

load() { # load PORT PID [DURATION] [REDIS_PID]
	"$work/load" -url "http://127.0.0.1:$1/v0/warehouses" -token "$token" -rate "$RATE" -d "${3:-$DURATION}" -pid "$2" -redis-pid "${4:-0}"
}
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

load "$PORT" "$memory_pid" "$WARMUP" >/dev/null
load $((PORT + 1)) "$redis_service_pid" "$WARMUP" >/dev/null
# redis-server's CPU when nobody asks it (its timers), to tell apart from its checks'.
hz=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$redis_pid/stat"; }
t0=$(ticks)
sleep 10
idle_us_per_s=$(awk -v t=$(($(ticks) - t0)) -v hz="$hz" 'BEGIN { printf "%.0f", t / hz * 1e6 / 10 }')

echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(redis-server --version | cut -d' ' -f1-3), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GET /v0/warehouses ($WAREHOUSES warehouses), open loop $RATE/s, $DURATION per run, $ROUNDS rounds"
ratios=()
redis_checks=()
requests=0
redis-cli -p "$REDIS_PORT" CONFIG RESETSTAT >/dev/null
for round in $(seq "$ROUNDS"); do
	mem=$(load "$PORT" "$memory_pid")
	red=$(load $((PORT + 1)) "$redis_service_pid" "$DURATION" "$redis_pid")
	for r in "$mem" "$red"; do
		[[ $(field failed "$r") == 0 ]] || { echo "run.sh: failed requests: $r" >&2; exit 1; }
	done
	m=$(field server_cpu_us_per_request "$mem") r=$(field server_cpu_us_per_request "$red")
	ratio=$(awk -v a="$r" -v b="$m" 'BEGIN { printf "%.3f", a / b }')
	ratios+=("$ratio")
	redis_checks+=("$(field redis_cpu_us_per_request "$red")")
	requests=$((requests + $(field sent "$red")))
	printf 'round %d: CPU µs per request: memory %.0f, Redis %.0f (redis-server %.1f per check) | Redis / memory %s | p99 ms: memory %s, Redis %s\n' \
		"$round" "$m" "$r" "$(field redis_cpu_us_per_request "$red")" "$ratio" "$(field p99_ms "$mem")" "$(field p99_ms "$red")"
done
echo "median Redis / memory: $(median "${ratios[@]}") (target ≤ 1.1)"
# The round trips: EVALSHA (EVAL when Redis did not have the script) per request of the rounds; the
# script's own TIME, GET and SET run inside it.
trips=$(redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | grep -E '^cmdstat_(evalsha|eval):' | grep -Eo 'calls=[0-9]+' | cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }')
commands=$(redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | grep -Eo '^cmdstat_[a-z|]+' | sed 's/cmdstat_//' | paste -sd, -)
per_check=$(median "${redis_checks[@]}")
echo "redis-server CPU µs per check, serving the service: median $per_check, $(awk -v c="$per_check" -v i="$idle_us_per_s" -v r="$RATE" 'BEGIN { printf "%.1f", c - i / r }') less its idle $idle_us_per_s µs/s; scripts run per request: $(awk -v c="$trips" -v n="$requests" 'BEGIN { printf "%.3f", c / n }') (commands seen: $commands)"

# redis-benchmark: the same script, already loaded by the service (its SHA1 must be there).
sha=$(sha1sum bench/ratelimit/gcra.lua | cut -d' ' -f1)
[[ $(redis-cli -p "$REDIS_PORT" SCRIPT EXISTS "$sha") == 1 ]] || { echo "run.sh: the service did not load bench/ratelimit/gcra.lua's script ($sha): redis_rate's changed?" >&2; exit 1; }
for conns in 1 8; do
	t0=$(ticks)
	rps=$(redis-benchmark -p "$REDIS_PORT" -c "$conns" -n "$BENCH_CHECKS" -q EVALSHA "$sha" 1 "rate:fulfillment:org:$ORG" 1000000 1000000 1 1 | tr '\r' '\n' | grep -Eo '[0-9.]+ requests per second' | tail -1)
	t1=$(ticks)
	awk -v t=$((t1 - t0)) -v hz="$hz" -v n="$BENCH_CHECKS" -v rps="$rps" -v c="$conns" \
		'BEGIN { printf "redis-benchmark, EVALSHA of the same script, %d connection(s): %s; redis-server CPU µs per check %.1f\n", c, rps, t / hz * 1e6 / n }'
done
