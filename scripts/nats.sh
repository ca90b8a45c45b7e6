#!/usr/bin/env bash
# scripts/nats.sh — find (or start) the NATS JetStream server for development and tests.
#
#   nats_env="$(scripts/nats.sh)" && eval "$nats_env"
#
# On success it prints exactly one line on stdout and nothing else:
#
#   export EVENTS_NATS_URL='nats://127.0.0.1:4222'   the machine's NATS with JetStream
#
# Diagnostics go to stderr. How it decides:
#   (a) nats-server (Debian package `nats-server`, /usr/sbin/nats-server) must be installed: the
#       tests start private servers of their own with it (adapters/broker/natstest). Missing and
#       running as root with apt-get: install it; else exit 1 saying what to run.
#   (b) 127.0.0.1:4222 (NATSSH_PORT) answers: use it. Else start the machine's server there, with
#       JetStream and its store in /var/lib/nats-server (as root; NATSSH_STORE_DIR), in the
#       background, and wait for it. Nothing else on this machine is touched.
#
# Knobs: NATSSH_PORT (default 4222), NATSSH_STORE_DIR, NATSSH_NO_INSTALL=1 (never run apt-get).
set -euo pipefail

exec 3>&1 1>&2

PORT=${NATSSH_PORT:-4222}
SCRIPT_NAME=nats.sh
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
answers() { (exec 9<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

bin=$(debian_server nats-server /usr/sbin/nats-server "${NATSSH_NO_INSTALL:-0}")
[[ -x $bin ]] || die "nats-server is still missing after apt-get install"

if ! answers; then
	if [[ $EUID == 0 ]]; then
		store=${NATSSH_STORE_DIR:-/var/lib/nats-server}
		logfile=/var/log/nats-server.log
	else
		store=${NATSSH_STORE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fulfillment-nats}
		logfile=$store/nats-server.log
	fi
	mkdir -p "$store"
	log "starting nats-server with JetStream on 127.0.0.1:$PORT (store $store, log $logfile)"
	if have start-stop-daemon; then
		start-stop-daemon --start --oknodo --background --exec "$bin" -- \
			-a 127.0.0.1 -p "$PORT" -js -sd "$store" -l "$logfile"
	else
		nohup "$bin" -a 127.0.0.1 -p "$PORT" -js -sd "$store" -l "$logfile" >/dev/null 2>&1 &
	fi
	for _ in $(seq 100); do
		answers && break
		sleep 0.1
	done
	answers || die "nats-server does not answer on 127.0.0.1:$PORT (its log: $logfile)"
fi

printf "export EVENTS_NATS_URL='nats://127.0.0.1:%s'\n" "$PORT" >&3
