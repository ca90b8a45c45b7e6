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

log() { printf 'redis.sh: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }

bin=${REDIS_SERVER_BIN:-$(command -v redis-server || true)}
[[ -z $bin && -x /usr/bin/redis-server ]] && bin=/usr/bin/redis-server
if [[ -z $bin ]]; then
	if [[ ${REDISSH_NO_INSTALL:-0} == 1 || $EUID != 0 ]] || ! have apt-get; then
		die "redis-server is not installed: run  sudo apt-get install -y redis-server"
	fi
	log "installing the Debian package redis-server (once)"
	if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server >&2; then
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server >&2
	fi
	bin=$(command -v redis-server || echo /usr/bin/redis-server)
fi
[[ -x $bin ]] || die "redis-server is missing at $bin"
"$bin" --version >/dev/null || die "$bin does not run"
printf '%s\n' "$bin" >&3
