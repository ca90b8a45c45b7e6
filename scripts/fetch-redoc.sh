#!/usr/bin/env bash
# scripts/fetch-redoc.sh — re-fetch from npm the Redoc bundle that GET /docs serves, and check it.
#
#   scripts/fetch-redoc.sh           fetch redoc@$REDOC_VERSION, check the tarball against the pinned
#                                    npm integrity and each file against api/redoc/SHA256SUMS, and
#                                    write the files into api/redoc/
#   scripts/fetch-redoc.sh --check   the same, writing nothing: exit 1 unless the committed files are
#                                    exactly npm's
#   scripts/fetch-redoc.sh --update  after changing REDOC_VERSION and REDOC_INTEGRITY below (from
#                                    `npm view redoc@VERSION dist.integrity`): write the new files and
#                                    their SHA256SUMS
#
# The files: the standalone bundle, Redoc's licence, and the notices of the libraries bundled into it
# (the bundle and the search worker it inlines). Nothing else of the package is used.
set -euo pipefail

REDOC_VERSION=2.5.4
REDOC_INTEGRITY=sha512-M6jWhG1qoBnH6TFmzJnstyCZ87HmOY/UzDm78mHiYihEdlV/YcS9ogOo1NlElnJMeLsyxHFe2yFc4sNjHTrABQ==
FILES=(
	package/bundles/redoc.standalone.js
	package/bundles/redoc.standalone.js.LICENSE.txt
	package/bundles/d87bcbdbea8f8f5aa26f.worker.js.LICENSE.txt
	package/LICENSE
)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=$ROOT/api/redoc
mode=${1:-fetch}
case $mode in fetch | --check | --update) ;; *)
	echo "usage: $0 [--check|--update]" >&2
	exit 2
	;;
esac

log() { printf 'fetch-redoc: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}
command -v npm >/dev/null || die "npm is missing: run  sudo apt-get install -y npm"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm checks the tarball against the registry's integrity; comparing that with the pinned value
# catches a version republished with other content.
integrity=$(cd "$tmp" && npm pack --silent --json "redoc@$REDOC_VERSION" |
	node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => console.log(JSON.parse(s)[0].integrity))')
[[ $integrity == "$REDOC_INTEGRITY" ]] || die "redoc@$REDOC_VERSION has integrity $integrity, pinned $REDOC_INTEGRITY"
tar -xzf "$tmp/redoc-$REDOC_VERSION.tgz" -C "$tmp" "${FILES[@]}"
mkdir -p "$tmp/out"
for f in "${FILES[@]}"; do cp "$tmp/$f" "$tmp/out/"; done

if [[ $mode == --update ]]; then
	(cd "$tmp/out" && sha256sum -- *) >"$tmp/SHA256SUMS"
	mv "$tmp/SHA256SUMS" "$tmp/out/"
else
	(cd "$tmp/out" && sha256sum --quiet -c "$DEST/SHA256SUMS") || die "redoc@$REDOC_VERSION does not match api/redoc/SHA256SUMS"
	cp "$DEST/SHA256SUMS" "$tmp/out/"
fi

if [[ $mode == --check ]]; then
	for f in "$tmp"/out/*; do
		cmp -s "$f" "$DEST/$(basename "$f")" || die "api/redoc/$(basename "$f") differs from redoc@$REDOC_VERSION on npm"
	done
	log "api/redoc holds redoc@$REDOC_VERSION exactly as published on npm"
	exit 0
fi
rm -rf "$DEST"
mkdir -p "$DEST"
cp "$tmp"/out/* "$DEST/"
log "wrote redoc@$REDOC_VERSION into api/redoc"
