#!/usr/bin/env bash
# bench/intake/instructions.sh — what tracing costs the intake, in instructions rather than seconds
# (docs/benchmarks/intake.md): BenchmarkIntake (bootstrap/, the real graph's handler against
# PostgreSQL) under valgrind's callgrind, with no export and with every trace sampled and exported
# to a real Jaeger (scripts/jaeger.sh), each at two numbers of deliveries, so that start-up and
# seeding cancel out: instructions per delivery = (I(LONG) − I(SHORT)) / (LONG − SHORT).
#
#   bench/intake/instructions.sh
#   SHORT=1000 LONG=4000 TEST_BIN=/path/to/bootstrap.test bench/intake/instructions.sh   # another build
#
# One P and no asynchronous preemption (callgrind's signal handling does not follow Go's); the
# counts are of the test process only (handler, driver, span export), not PostgreSQL's or Jaeger's,
# and hardly move with the machine's other load. TEST_BIN: a test binary of ./bootstrap built
# elsewhere (go test -c), e.g. of an older commit. Four runs of a minute or two each, two at a time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SHORT=${SHORT:-1000}
LONG=${LONG:-4000}
JAEGER_PORT=${JAEGER_PORT:-14318}
work=.tmp/bench-instructions
mkdir -p "$work"
if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pg_env="$(scripts/pg.sh)"
	eval "$pg_env"
fi
valgrind=$(scripts/tools.sh valgrind)
bin=${TEST_BIN:-$work/bootstrap.test}
[[ -n ${TEST_BIN:-} ]] || go test -c -o "$bin" ./bootstrap/
bin=$(realpath "$bin")

# shellcheck source=bench/intake/jaeger.sh
source bench/intake/jaeger.sh
start_jaeger "$JAEGER_PORT" "$work/jaeger.log"
trap 'kill "$jaeger_pid" 2>/dev/null; wait "$jaeger_pid" 2>/dev/null || true' EXIT

# count MODE N: the instructions of one run of BenchmarkIntake with N deliveries.
count() {
	local mode=$1 n=$2 out=$work/callgrind.$1.$2
	local env=(OTEL_TRACES_EXPORTER=none)
	[[ $mode == none ]] || env=(OTEL_TRACES_EXPORTER=otlp "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$JAEGER_PORT"
		OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=1)
	(cd bootstrap && env "${env[@]}" GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 "$valgrind" --tool=callgrind \
		"--callgrind-out-file=$PWD/../$out" "$bin" -test.run '^$' -test.bench '^BenchmarkIntake$' \
		-test.benchtime "${n}x" >"$PWD/../$out.log" 2>&1) || { cat "$out.log" >&2; exit 1; }
	sed -nE 's/^summary: ([0-9]+)/\1/p' "$out"
}
per() { awk -v a="$1" -v b="$2" -v n="$((LONG - SHORT))" 'BEGIN { printf "%.0f", (b - a) / n }'; }

for mode in none every; do
	count "$mode" "$SHORT" >"$work/$mode.short" &
	count "$mode" "$LONG" >"$work/$mode.long"
	wait $!
done
none=$(per "$(cat "$work/none.short")" "$(cat "$work/none.long")")
every=$(per "$(cat "$work/every.short")" "$(cat "$work/every.long")")
echo "instructions per delivery: no export $none, every trace $every; tracing adds $((every - none))" \
	"($(awk -v a="$every" -v b="$none" 'BEGIN { printf "%.1f", 100 * (a - b) / b }') %)"
echo "the profiles: callgrind_annotate $work/callgrind.every.$LONG (and .none.$LONG)"
