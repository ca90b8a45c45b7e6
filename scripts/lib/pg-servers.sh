# shellcheck shell=bash
# scripts/lib/pg-servers.sh — sourced (never run) by scripts/pg.sh: the servers it starts or
# installs when none answers. (c) the Debian clusters, (d) the install with apt-get, the private
# cluster under <repo>/.tmp/pg and its stop. It uses pg.sh's settings (ROOT, DEFAULT_PORT,
# PRIVATE_PORT) and functions (log, die, have, answers, local_dsn, use_local_port).

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
