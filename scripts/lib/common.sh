# shellcheck shell=bash
# scripts/lib/common.sh — sourced (never run) by the scripts of scripts/: their messages on stderr
# and the Debian packages they install. The sourcing script sets SCRIPT_NAME, the prefix of its
# messages, first.

log() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() {
	log "$*"
	exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }

# apt_get_install PKG...: apt-get install PKG...; a stale package index makes apt-get fail on a
# fresh machine, so on failure the index is refreshed once and the install tried again.
apt_get_install() {
	if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >&2; then
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >&2
	fi
}

# debian_server NAME FALLBACK NO_INSTALL: the path of the executable NAME of the Debian package of
# the same name (FALLBACK when it is not on PATH). Missing, it is installed when running as root
# with apt-get and NO_INSTALL is not 1; else exit 1 saying what to run.
debian_server() {
	local name=$1 fallback=$2 no_install=$3 bin
	bin=$(command -v "$name" || true)
	[[ -z $bin && -x $fallback ]] && bin=$fallback
	if [[ -z $bin ]]; then
		if [[ $no_install == 1 || $EUID != 0 ]] || ! have apt-get; then
			die "$name is not installed: run  sudo apt-get install -y $name"
		fi
		log "installing the Debian package $name (once)"
		apt_get_install "$name"
		bin=$(command -v "$name" || echo "$fallback")
	fi
	printf '%s\n' "$bin"
}
