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

log() { printf 'pg.sh: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }

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

# as_pg CMD...: run CMD as the owner of the private cluster (user postgres when we are root).
# runuser lives in sbin, which a minimal PATH may lack.
RUNUSER=$(PATH="$PATH:/usr/sbin:/sbin" command -v runuser || true)
as_pg() {
	if ((EUID == 0)); then
		if [[ -n $RUNUSER ]]; then
			(cd / && "$RUNUSER" -u postgres -- "$@")
		else
			# `--`: su would otherwise take options of CMD (say test -w) as its own.
			# shellcheck disable=SC2016 # expanded by the inner sh
			(cd / && su -s /bin/sh -c '"$0" "$@"' -- postgres "$@")
		fi
	else
		"$@"
	fi
}

# server_bindir [MAJOR]: directory holding initdb/pg_ctl/postgres (newest version unless MAJOR).
server_bindir() {
	local want=${1:-} d
	local candidates=()
	if [[ -n $want ]]; then
		candidates+=("/usr/lib/postgresql/$want/bin" "/usr/pgsql-$want/bin")
	else
		# newest first
		while IFS= read -r d; do candidates+=("$d"); done < <(
			printf '%s\n' /usr/lib/postgresql/*/bin /usr/pgsql-*/bin | sort -rV
		)
	fi
	candidates+=(/usr/local/pgsql/bin)
	if have pg_ctl; then candidates+=("$(dirname "$(command -v pg_ctl)")"); fi
	for d in "${candidates[@]}"; do
		[[ -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]] || continue
		if [[ -n $want ]]; then
			[[ $("$d/postgres" --version 2>/dev/null) =~ \)\ ([0-9]+) && ${BASH_REMATCH[1]} == "$want" ]] || continue
		fi
		printf '%s' "$d"
		return 0
	done
	return 1
}

# (c) Debian clusters: online on another port, or down and startable.
use_debian_clusters() {
	have pg_lsclusters || return 1
	local lines line ver name port status owner
	mapfile -t lines < <(pg_lsclusters --no-header 2>/dev/null || true)
	for line in "${lines[@]}"; do
		read -r ver name port status owner _ <<<"$line"
		[[ $ver =~ ^[0-9.]+$ && $port =~ ^[0-9]+$ ]] || continue
		case $status in
		online*)
			[[ $port == "$DEFAULT_PORT" ]] && continue # tried in (b)
			use_local_port "$port" || true
			;;
		down)
			((EUID == 0)) || [[ $owner == "$(id -un)" ]] || continue
			have pg_ctlcluster || continue
			log "starting PostgreSQL cluster $ver/$name on port $port"
			if ! pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start </dev/null 3>&- 9>&-; then
				log "could not start cluster $ver/$name"
				continue
			fi
			use_local_port "$port" || {
				log "cluster $ver/$name does not let user postgres in over TCP without a password; stopping it again"
				pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" stop </dev/null 3>&- 9>&- || true
			}
			;;
		esac
	done
	return 1
}

# (d) Install the server with apt-get.
install_postgres() {
	[[ ${PGSH_NO_INSTALL:-} != 1 ]] || return 1
	((EUID == 0)) && have apt-get || return 1
	log "PostgreSQL is not installed: installing postgresql and postgresql-contrib with apt-get (PGSH_NO_INSTALL=1 skips this)"
	{
		apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib
	} </dev/null 3>&- 9>&-
}

# A name for this checkout, for paths outside it.
checkout_id() { printf '%s-%s' "$(id -u)" "$(cksum <<<"$ROOT" | cut -d' ' -f1)"; }

# Directories where a private cluster may live, in order of preference.
private_dirs() {
	if [[ -n ${PGSH_PRIVATE_DIR:-} ]]; then
		printf '%s\n' "$PGSH_PRIVATE_DIR"
		return
	fi
	printf '%s\n' "$ROOT/.tmp/pg" "${TMPDIR:-/tmp}/fulfillment-pg-$(checkout_id)"
}

# lock: serialise concurrent runs (say `make test` and `make run`) around initdb and start.
# The lock is fd 9, held until exit; daemons we start must not inherit it (9>&-).
lock() {
	have flock || return 0
	local f
	f="${TMPDIR:-/tmp}/fulfillment-pg-$(checkout_id).lock"
	exec 9>>"$f" || return 0
	flock -w 300 9 || die "timed out waiting for another scripts/pg.sh (lock $f)"
}

# prepare_dir DIR: create DIR for the cluster owner; fail when the owner cannot write it.
prepare_dir() {
	local dir=$1
	mkdir -p "$dir" 2>/dev/null || return 1
	if ((EUID == 0)); then
		chown postgres: "$dir" || return 1
	fi
	chmod 700 "$dir" || return 1
	as_pg test -w "$dir/." -a -x "$dir/." 2>/dev/null
}

locale_opts() {
	if locale -a 2>/dev/null | grep -qix 'c\.utf-\{0,1\}8'; then
		printf '%s\n' --locale=C.UTF-8
	else
		printf '%s\n' --no-locale
	fi
}

# The private cluster: initdb once, then pg_ctl start.
use_private_cluster() {
	local bindir dir='' d data ver owner
	bindir=$(server_bindir) || return 1
	if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
		die "running as root and there is no user 'postgres' to own a private cluster (initdb refuses root). Create it (useradd --system --user-group --home-dir /var/lib/postgresql postgres) or run as a normal user."
	fi
	# A directory that already holds a cluster wins; else the first usable one.
	while IFS= read -r d; do
		if [[ -s $d/data/PG_VERSION ]]; then
			dir=$d
			break
		fi
	done < <(private_dirs)
	if [[ -z $dir ]]; then
		while IFS= read -r d; do
			if prepare_dir "$d"; then
				dir=$d
				break
			fi
		done < <(private_dirs)
	fi
	owner=$(id -un)
	((EUID == 0)) && owner=postgres
	[[ -n $dir ]] || die "no directory for a private cluster that user $owner can write; set PGSH_PRIVATE_DIR"
	data=$dir/data

	if [[ ! -s $data/PG_VERSION ]]; then
		log "creating a private PostgreSQL cluster in $data (trust auth, 127.0.0.1:$PRIVATE_PORT)"
		local opts
		mapfile -t opts < <(locale_opts)
		if ! as_pg "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 "${opts[@]}" >"$dir/initdb.log" 2>&1 </dev/null; then
			cat "$dir/initdb.log" >&2
			die "initdb failed (log above, also in $dir/initdb.log)"
		fi
		# Our settings live in their own file, included at the end, so a port change is one rewrite.
		printf "\ninclude_if_exists = 'pgsh.conf'\n" | as_pg tee -a "$data/postgresql.conf" >/dev/null
	fi
	ver=$(<"$data/PG_VERSION")
	bindir=$(server_bindir "$ver") || die "$data was made by PostgreSQL $ver, whose server binaries are not installed; remove $dir or install PostgreSQL $ver"

	# A throwaway cluster for development and tests: durability is traded for speed.
	as_pg tee "$data/pgsh.conf" >/dev/null <<EOF
# written by scripts/pg.sh on every start
port = $PRIVATE_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF

	if ! as_pg "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		answers "$(local_dsn "$PRIVATE_PORT" postgres)" &&
			die "port $PRIVATE_PORT is taken by a server that does not let user postgres in; set PGSH_PRIVATE_PORT to a free port"
		log "starting the private PostgreSQL cluster (127.0.0.1:$PRIVATE_PORT, log $dir/postgres.log)"
		# 3>&-: the server must not inherit our stdout, or `$(scripts/pg.sh)` would wait for it
		# forever; 9>&-: nor our lock.
		if ! as_pg "$bindir/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 start </dev/null >"$dir/pg_ctl.log" 2>&1 3>&- 9>&-; then
			cat "$dir/pg_ctl.log" >&2
			tail -n 20 "$dir/postgres.log" >&2 2>/dev/null || true
			die "could not start the private cluster in $data"
		fi
	fi
	use_local_port "$PRIVATE_PORT" || die "the private cluster in $data is running but does not answer on 127.0.0.1:$PRIVATE_PORT (see $dir/postgres.log)"
}

stop_private() {
	local d ver bindir stopped=0
	while IFS= read -r d; do
		[[ -s $d/data/PG_VERSION ]] || continue
		ver=$(<"$d/data/PG_VERSION")
		bindir=$(server_bindir "$ver") || continue
		if as_pg "$bindir/pg_ctl" -D "$d/data" status >/dev/null 2>&1; then
			as_pg "$bindir/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null
			log "stopped the private cluster in $d/data"
			stopped=1
		fi
	done < <(private_dirs)
	((stopped)) || log "no private cluster is running"
}

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
