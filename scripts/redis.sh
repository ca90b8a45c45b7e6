#!/usr/bin/env bash
# scripts/redis.sh — make sure redis-server is installed, for the tests of the shared rate-limit
# buckets (adapters/ratelimit/redistest starts a private server per test on a free loopback port,
# keeping nothing on disk) and for a development RATE_LIMIT_REDIS_URL.
#
#   scripts/redis.sh            check (or install) the binary; prints its path on stdout
#
# Missing and running as root with apt-get: install the Debian package redis-server (Redis 7);
# else exit 1 saying what to run. Nothing is started: `make run` needs no Redis (the buckets are
# then per replica, in memory), and the tests start their own.
#
# Knobs: REDIS_SERVER_BIN (a redis-server elsewhere), REDISSH_NO_INSTALL=1 (never run apt-get).
set -euo pipefail

exec 3>&1 1>&2

SCRIPT_NAME=redis.sh
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

bin=${REDIS_SERVER_BIN:-}
[[ -n $bin ]] || bin=$(debian_server redis-server /usr/bin/redis-server "${REDISSH_NO_INSTALL:-0}")
[[ -x $bin ]] || die "redis-server is missing at $bin"
"$bin" --version >/dev/null || die "$bin does not run"
printf '%s\n' "$bin" >&3
