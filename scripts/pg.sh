#!/usr/bin/env bash
# scripts/pg.sh — find (or start) a PostgreSQL server for development and tests.
#
# Usage (note: not `eval "$(scripts/pg.sh)"` alone — eval of a failed command
# substitution succeeds, so the failure would be lost):
#
#   pg_env="$(scripts/pg.sh)" && eval "$pg_env"
#   scripts/pg.sh stop      # stop the private cluster this script may have started
#
# On success it prints exactly two lines on stdout and nothing else:
#
#   export DATABASE_URL='postgres://...'        the application database (created if missing)
#   export TEST_DATABASE_URL='postgres://...'   an admin DSN on the same server (database
#                                               `postgres`): tests CREATE/DROP their own databases
#
# Diagnostics go to stderr. It says nothing unless it has to start, install or warn.
#
# How it decides, first match wins:
#   (a) DATABASE_URL and/or TEST_DATABASE_URL is set and its server answers: use it. The
#       missing one is derived (same server; database `postgres` for tests, `fulfillment` for
#       the app).
#   (b) 127.0.0.1:5432 (PGSH_DEFAULT_PORT) answers and admits user postgres without a password.
#   (b') 127.0.0.1:$PGSH_PRIVATE_PORT answers likewise (the private cluster of (c), already running).
#   (c) A Debian cluster (pg_lsclusters) that is online on another port, or down and startable
#       (pg_ctlcluster --skip-systemctl-redirect VER NAME start), and admits postgres without a
#       password. A cluster it started but cannot use is stopped again.
#       Otherwise: a private cluster under <repo>/.tmp/pg (initdb + pg_ctl, as user `postgres`
#       when run as root because initdb refuses root), trust auth, listening on
#       127.0.0.1:$PGSH_PRIVATE_PORT only, no Unix socket. It keeps running after this script
#       exits; `scripts/pg.sh stop` stops it.
#   (d) No PostgreSQL server binaries and running as root with apt-get: install
#       postgresql + postgresql-contrib, then (b)/(c) again.
#   Else: exit 1 saying what to run.
#
# Knobs (mainly to test this script):
#   PGSH_FORCE_PRIVATE=1  skip (a), (b) and the Debian clusters of (c): use the private cluster
#   PGSH_PRIVATE_DIR      where the private cluster lives (default <repo>/.tmp/pg, or a directory
#                         under /tmp when user postgres cannot reach the checkout)
#   PGSH_PRIVATE_PORT     its port (default 55432)
#   PGSH_DEFAULT_PORT     the port of (b) (default 5432)
#   PGSH_NO_INSTALL=1     never run apt-get
set -euo pipefail

# stdout is reserved for the export lines; everything else, from us or from the
# commands we run, goes to stderr.
exec 3>&1 1>&2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEFAULT_PORT=${PGSH_DEFAULT_PORT:-5432}
PRIVATE_PORT=${PGSH_PRIVATE_PORT:-55432}
APP_DB=fulfillment
export PGCONNECT_TIMEOUT=${PGCONNECT_TIMEOUT:-5}

SCRIPT_NAME=pg.sh
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

usage() {
	sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

# shq VALUE: VALUE single-quoted for the shell.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

emit() {
	printf 'export DATABASE_URL=%s\nexport TEST_DATABASE_URL=%s\n' "$(shq "$1")" "$(shq "$2")" >&3
	exit 0
}

# redact DSN: DSN for messages: no password, no parameters.
redact() {
	local dsn=${1%%\?*}
	if [[ $dsn =~ ^(postgres(ql)?://[^:@/]*):[^@/]*@(.*)$ ]]; then
		dsn="${BASH_REMATCH[1]}:***@${BASH_REMATCH[3]}"
	fi
	dsn=$(sed -E "s/(^|[[:space:]])password[[:space:]]*=[[:space:]]*('[^']*'|[^[:space:]]+)/\\1password=***/" <<<"$dsn")
	printf '%s' "$dsn"
}

local_dsn() { printf 'postgres://postgres@127.0.0.1:%s/%s?sslmode=disable' "$1" "$2"; }

# with_db DSN DB: the same server and parameters, another database.
with_db() {
	local dsn=$1 db=$2
	if [[ $dsn =~ ^(postgres(ql)?://[^/?#]*)(/[^?#]*)?(\?[^#]*)?$ ]]; then
		printf '%s/%s%s' "${BASH_REMATCH[1]}" "$db" "${BASH_REMATCH[4]}"
	elif [[ $dsn =~ (^|[[:space:]])dbname[[:space:]]*= ]]; then
		# shellcheck disable=SC2001 # a regex replacement, not a simple substitution
		sed -E "s/(^|[[:space:]])dbname[[:space:]]*=[[:space:]]*('[^']*'|[^[:space:]]+)/\\1dbname=$db/" <<<"$dsn"
	else
		printf '%s dbname=%s' "$dsn" "$db"
	fi
}

# db_of DSN: the database name in DSN (empty when it is not given).
db_of() {
	local dsn=$1 db=
	if [[ $dsn =~ ^postgres(ql)?://[^/?#]*/([^?#]*) ]]; then
		db=${BASH_REMATCH[2]}
		db=$(printf '%b' "${db//%/\\x}") # percent-decoding
	elif [[ $dsn =~ (^|[[:space:]])dbname[[:space:]]*=[[:space:]]*(\'[^\']*\'|[^[:space:]]+) ]]; then
		db=${BASH_REMATCH[2]}
		db=${db#\'}
		db=${db%\'}
	fi
	printf '%s' "$db"
}

# host_port_of DSN: "host port" for the /dev/tcp fallback (URL form only, else localhost:5432).
host_port_of() {
	local dsn=$1 host=127.0.0.1 port=5432
	if [[ $dsn =~ ^postgres(ql)?://([^@/?#]*@)?(\[[^]]*\]|[^:/?#,]*)(:([0-9]+))? ]]; then
		[[ -n ${BASH_REMATCH[3]} ]] && host=${BASH_REMATCH[3]}
		[[ -n ${BASH_REMATCH[5]} ]] && port=${BASH_REMATCH[5]}
	fi
	host=${host#[}
	host=${host%]}
	printf '%s %s' "$host" "$port"
}

# answers DSN: the server behind DSN accepts connections (credentials are not checked).
answers() {
	local dsn=$1
	if have pg_isready; then
		pg_isready -q -t 3 -d "$dsn" </dev/null
		return
	fi
	local host port
	read -r host port <<<"$(host_port_of "$dsn")"
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 3 bash -c 'exec 9<>"/dev/tcp/$1/$2"' _ "$host" "$port" 2>/dev/null
}

# admits DSN: we can log in and run a query (true when psql is missing: we cannot tell).
LAST_ERROR=
admits() {
	have psql || return 0
	LAST_ERROR=$(psql -X -w -q -At -v ON_ERROR_STOP=1 -d "$1" -c 'select 1' 2>&1 >/dev/null </dev/null) && return 0
	LAST_ERROR=${LAST_ERROR//$'\n'/ }
	return 1
}

# psql_admin ADMIN_DSN DB: run SQL from stdin with :'db' / :"db" bound to DB.
psql_admin() { psql -X -w -q -At -v ON_ERROR_STOP=1 -v db="$2" -d "$1"; }

# ensure_db ADMIN_DSN DB: create database DB unless it exists.
ensure_db() {
	local admin=$1 db=$2 found err
	[[ -n $db && $db != postgres ]] || return 0
	if ! have psql; then
		log "warning: psql not found, cannot check that database \"$db\" exists (install postgresql-client)"
		return 0
	fi
	found=$(psql_admin "$admin" "$db" <<<"select 1 from pg_database where datname = :'db';") || return 1
	[[ $found == 1 ]] && return 0
	if ! err=$(psql_admin "$admin" "$db" <<<'create database :"db";' 2>&1); then
		# A concurrent run may have created it in the meantime.
		found=$(psql_admin "$admin" "$db" <<<"select 1 from pg_database where datname = :'db';") || true
		[[ $found == 1 ]] || {
			log "cannot create database \"$db\": $err"
			return 1
		}
	fi
}

# check_trgm ADMIN_DSN: warn when the pg_trgm extension cannot be installed on this server.
check_trgm() {
	have psql || return 0
	local found
	found=$(psql -X -w -q -At -d "$1" -c "select 1 from pg_available_extensions where name = 'pg_trgm'" 2>/dev/null </dev/null) || true
	[[ $found == 1 ]] ||
		log "warning: extension pg_trgm is not available on this server; install it (Debian: apt-get install postgresql-contrib)"
}

# use_server APP_DSN ADMIN_DSN: emit (and exit) when the server answers and admits us.
use_server() {
	local app=$1 admin=$2
	answers "$admin" || return 1
	if ! admits "$admin"; then
		log "$(redact "$admin") answers but refuses us: $LAST_ERROR"
		return 1
	fi
	ensure_db "$admin" "$(db_of "$app")" || return 1
	check_trgm "$admin"
	emit "$app" "$admin"
}

use_local_port() { use_server "$(local_dsn "$1" "$APP_DB")" "$(local_dsn "$1" postgres)"; }

# (a) Whatever the caller configured.
use_configured() {
	local app=${DATABASE_URL:-} admin=${TEST_DATABASE_URL:-}
	[[ -n $app || -n $admin ]] || return 1
	[[ -n $app ]] || app=$(with_db "$admin" "$APP_DB")
	[[ -n $admin ]] || admin=$(with_db "$app" postgres)
	if ! answers "$app"; then
		log "the server of DATABASE_URL/TEST_DATABASE_URL ($(redact "$app")) does not answer; looking for another PostgreSQL"
		return 1
	fi
	# The caller chose this server: problems are warnings, not a reason to switch servers.
	if admits "$admin"; then
		ensure_db "$admin" "$(db_of "$app")" || log "warning: could not make sure database \"$(db_of "$app")\" exists"
		check_trgm "$admin"
	else
		log "warning: cannot log in with TEST_DATABASE_URL ($(redact "$admin")): $LAST_ERROR"
	fi
	emit "$app" "$admin"
}

# shellcheck source=scripts/lib/pg-servers.sh
source "$ROOT/scripts/lib/pg-servers.sh"

main() {
	case ${1:-} in
	'') ;;
	stop)
		stop_private
		return
		;;
	-h | --help)
		usage >&3
		return
		;;
	*)
		usage
		exit 2
		;;
	esac

	local forced=0
	[[ ${PGSH_FORCE_PRIVATE:-} == 1 ]] && forced=1

	if ((!forced)); then
		use_configured || true                 # (a)
		use_local_port "$DEFAULT_PORT" || true # (b)
	fi
	# From here on we may start or install things: one run at a time.
	lock
	use_local_port "$PRIVATE_PORT" || true # (b') the private cluster, already running
	if ((!forced)); then
		use_debian_clusters || true # (c)
	fi

	if ! server_bindir >/dev/null; then
		if install_postgres; then # (d)
			if ((!forced)); then
				use_local_port "$DEFAULT_PORT" || true
				use_debian_clusters || true
			fi
		fi
	fi

	if server_bindir >/dev/null; then
		use_private_cluster
	fi

	if ((EUID == 0)); then
		how="apt-get install -y postgresql postgresql-contrib"
	else
		how="sudo apt-get install -y postgresql postgresql-contrib"
	fi
	die "no usable PostgreSQL found and none could be started. Install one ($how, or your platform's PostgreSQL 15+ with contrib) and re-run, or point DATABASE_URL at a running server, e.g. export DATABASE_URL='postgres://postgres@127.0.0.1:5432/fulfillment?sslmode=disable'"
}

main "$@"
