#!/usr/bin/env bash
# bench/intake/pgcpu.sh — PostgreSQL's CPU time per transaction of pgbench scripts, alternating
# (docs/benchmarks/intake.md): the bench for prototypes of the intake's SQL, before they go into Go.
#
#   bench/intake/pgcpu.sh SCRIPT...      e.g. bench/intake/intake.sql bench/intake/minimal.sql
#
# Makes the benchmark's database as run.sh does (setup.sh; no server is started), then ROUNDS
# times runs each SCRIPT with pgbench as run.sh does (-M prepared, CLIENTS clients, DURATION, after
# a VACUUM) and prints the CPU time per transaction of the database's backends, and each script's
# ratio to the last SCRIPT, per round and as medians. Knobs: those of setup.sh (CLIENTS 8,
# DURATION 15s, ROUNDS 5, SKUS 1000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
(($# > 0)) || { sed -n '2,11p' "${BASH_SOURCE[0]}" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "pgcpu.sh: pgbench is missing (Debian: apt-get install postgresql-client)" >&2; exit 1; }
scripts=("$@")
# shellcheck source=bench/intake/setup.sh
source bench/intake/setup.sh
[[ -n $pg_pid ]] || { echo "pgcpu.sh: PostgreSQL's postmaster is not a process of this machine" >&2; exit 1; }

echo "clients $CLIENTS, $DURATION per run, $ROUNDS rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "PostgreSQL's CPU per transaction (the benchmark database's backends), and its ratio to ${scripts[-1]}'s:"
declare -a ratios
for round in $(seq "$ROUNDS"); do
	us=()
	for s in "${scripts[@]}"; do
		pgbench_run "$s"
		us+=("$pg_us")
	done
	line="round $round:"
	for i in "${!scripts[@]}"; do
		r=$(awk -v a="${us[$i]}" -v b="${us[-1]}" 'BEGIN { printf "%.2f", a / b }')
		ratios[i]+="$r "
		line+=" | ${scripts[$i]} ${us[$i]} µs, $r"
	done
	echo "$line"
done
for i in "${!scripts[@]}"; do
	# shellcheck disable=SC2086 # one ratio a word
	echo "median ratio ${scripts[$i]} / ${scripts[-1]}: $(median ${ratios[i]}) (rounds ${ratios[i]% })"
done
