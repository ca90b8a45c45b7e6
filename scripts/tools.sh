#!/usr/bin/env bash
# scripts/tools.sh — find or install the tools that lint and tests need beyond Go.
#
#   scripts/tools.sh NAME    print the absolute path of NAME's executable on stdout, installing
#                            it on first use; diagnostics go to stderr; exit 1 when it cannot
#                            (monitoring-crds prints a directory of CRD manifests instead, axe-core
#                            the path of axe.min.js)
#
# Go-built tools are built once into $TOOLS_DIR (default ~/.cache/fulfillment-tools, outside the
# checkout, so that a fresh clone on the same machine reuses them) under a directory named after
# their pinned version: a second run finds them and builds nothing. Debian tools are installed
# with apt-get when running as root; otherwise the line says what to install.
#
# Knobs: FULFILLMENT_TOOLS_DIR (where Go-built tools live), TOOLS_NO_INSTALL=1 (never install).
set -euo pipefail

# stdout carries only the path; everything else goes to stderr.
exec 3>&1 1>&2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS_DIR=${FULFILLMENT_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fulfillment-tools}

SCRIPT_NAME=tools.sh
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

found() {
	printf '%s\n' "$1" >&3
	exit 0
}

# apt_install PKG...: install Debian packages when root and allowed, else fail saying what to run.
apt_install() {
	if [[ ${TOOLS_NO_INSTALL:-0} == 1 || $EUID != 0 ]] || ! have apt-get; then
		die "missing Debian package(s) $*: run  sudo apt-get install -y $*"
	fi
	log "installing Debian package(s) $* (once)"
	apt_get_install "$@"
}

# go_tool NAME MODULE/CMD VERSION: the binary built by `go install MODULE/CMD@VERSION`, cached
# under $TOOLS_DIR/NAME-VERSION/bin.
go_tool() {
	local name=$1 pkg=$2 version=$3 bin="$TOOLS_DIR/$1-$3/bin/$1"
	if [[ ! -x $bin ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "$name $version is not built (unset TOOLS_NO_INSTALL)"
		log "building $name $version into $TOOLS_DIR (once; it can take minutes)"
		mkdir -p "$TOOLS_DIR/$name-$version/bin"
		GOBIN="$TOOLS_DIR/$name-$version/bin" GOFLAGS=-mod=mod go install "$pkg@$version" >&2
	fi
	found "$bin"
}

# npm_tool NAME PACKAGE VERSION: the executable NAME of the npm package PACKAGE@VERSION,
# installed once into $TOOLS_DIR/NAME-VERSION (never into the checkout).
npm_tool() {
	local name=$1 pkg=$2 version=$3 dir="$TOOLS_DIR/$1-$3" bin="$TOOLS_DIR/$1-$3/node_modules/.bin/$1"
	if [[ ! -x $bin ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "$name $version is not installed (unset TOOLS_NO_INSTALL)"
		have npm || apt_install nodejs npm
		log "installing $pkg@$version into $dir (once)"
		mkdir -p "$dir"
		npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts "$pkg@$version" >&2
	fi
	found "$bin"
}

# go_module_tool NAME MODULE VERSION CMD: the binary of ./CMD built inside MODULE@VERSION's own
# source tree, for modules whose go.mod has replace directives (which `go install pkg@version`
# refuses). The source comes from the module cache (`go mod download`), is copied to a writable
# scratch directory and built with the module's own go.mod and go.sum; the binary is cached under
# $TOOLS_DIR/NAME-VERSION/bin and moved there only once complete.
go_module_tool() {
	local name=$1 module=$2 version=$3 cmd=$4 bin="$TOOLS_DIR/$1-$3/bin/$1"
	if [[ ! -x $bin ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "$name $version is not built (unset TOOLS_NO_INSTALL)"
		log "building $name $version into $TOOLS_DIR (once; it can take 15 minutes or more)"
		local dir src
		mkdir -p "$TOOLS_DIR"
		dir=$(cd "$TOOLS_DIR" && GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
		[[ -n $dir && -d $dir ]] || die "go mod download $module@$version gave no source directory"
		mkdir -p "$TOOLS_DIR/$name-$version/bin"
		src=$(mktemp -d "$TOOLS_DIR/$name-$version/src.XXXXXX")
		# shellcheck disable=SC2064 # expand $src now: it is local to this function
		trap "rm -rf '$src'" EXIT
		cp -R "$dir/." "$src"
		chmod -R u+w "$src"
		(cd "$src" && GOFLAGS=-mod=mod go build -trimpath -o "$src/$name.bin" "./$cmd") >&2
		mv "$src/$name.bin" "$bin"
	fi
	found "$bin"
}

# kubernetes_tool NAME: NAME (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# kube-proxy or kubectl) of Kubernetes $KUBERNETES_VERSION. `go install` refuses k8s.io/kubernetes
# (its go.mod replaces the staging modules by relative path), so a wrapper module is generated that
# requires it and replaces each staging module by its published release of the same minor; the six
# commands are built together (one build, shared packages) with the version stamped the way the
# upstream release build does it (else the servers say v0.0.0), and moved into place when complete.
kubernetes_tool() {
	local name=$1 dir="$TOOLS_DIR/kubernetes-$KUBERNETES_VERSION" staging=${KUBERNETES_VERSION/#v1./v0.}
	local cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
	if [[ ! -x $dir/bin/$name ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "kubernetes $KUBERNETES_VERSION is not built (unset TOOLS_NO_INSTALL)"
		mkdir -p "$dir"
		# One build at a time: a second caller waits for the first and then finds the binaries.
		exec 9>"$dir/.lock"
		flock 9
		if [[ ! -x $dir/bin/$name ]]; then
			log "building Kubernetes $KUBERNETES_VERSION (${cmds[*]}) into $dir (once; 10-20 minutes)"
			local src gomod mod c pkgs=() x ldflags="-s -w" minor=${KUBERNETES_VERSION#v1.}
			minor=${minor%%.*}
			src=$(mktemp -d "$dir/src.XXXXXX")
			# shellcheck disable=SC2064 # expand $src now: it is local to this function
			trap "rm -rf '$src'" EXIT
			gomod=$(cd "$src" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
			[[ -n $gomod && -f $gomod ]] || die "go mod download k8s.io/kubernetes@$KUBERNETES_VERSION gave no go.mod"
			{
				printf 'module fulfillment.local/kubernetes-tools\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBERNETES_VERSION"
				sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/src/.*#\1#p' "$gomod" | while read -r mod; do
					printf 'replace %s => %s %s\n' "$mod" "$mod" "$staging"
				done
			} >"$src/go.mod"
			grep -q '^replace ' "$src/go.mod" || die "no staging modules found in $gomod"
			for c in "${cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
			for x in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
				ldflags+=" -X $x.gitVersion=$KUBERNETES_VERSION -X $x.gitMajor=1 -X $x.gitMinor=$minor"
				ldflags+=" -X $x.gitTreeState=clean -X $x.buildDate=1970-01-01T00:00:00Z"
			done
			mkdir -p "$src/bin"
			(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$src/bin/" "${pkgs[@]}") >&2
			mkdir -p "$dir/bin"
			for c in "${cmds[@]}"; do mv "$src/bin/$c" "$dir/bin/$c"; done
		fi
		flock -u 9
	fi
	found "$dir/bin/$name"
}

# monitoring_crds: the directory holding the prometheus-operator's published ServiceMonitor and
# PrometheusRule CRDs (the cluster test applies them to its API server), copied once out of the
# module's source (`go mod download`) into $TOOLS_DIR/monitoring-crds-VERSION, complete or not at all.
monitoring_crds() {
	local dir="$TOOLS_DIR/monitoring-crds-$PROMETHEUS_OPERATOR_VERSION" module=github.com/prometheus-operator/prometheus-operator
	local files=(monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml) src tmp f
	if ! [[ -s $dir/${files[0]} && -s $dir/${files[1]} ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "the monitoring CRDs $PROMETHEUS_OPERATOR_VERSION are not fetched (unset TOOLS_NO_INSTALL)"
		log "fetching the monitoring CRDs of $module@$PROMETHEUS_OPERATOR_VERSION into $dir (once)"
		mkdir -p "$TOOLS_DIR"
		src=$(cd "$TOOLS_DIR" && GOFLAGS=-mod=mod go mod download -json "$module@$PROMETHEUS_OPERATOR_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
		[[ -n $src && -d $src ]] || die "go mod download $module@$PROMETHEUS_OPERATOR_VERSION gave no source directory"
		tmp=$(mktemp -d "$TOOLS_DIR/monitoring-crds.XXXXXX")
		# shellcheck disable=SC2064 # expand $tmp now: it is local to this function
		trap "rm -rf '$tmp'" EXIT
		for f in "${files[@]}"; do
			[[ -s $src/example/prometheus-operator-crd/$f ]] || die "$module@$PROMETHEUS_OPERATOR_VERSION has no example/prometheus-operator-crd/$f"
			install -m 0644 "$src/example/prometheus-operator-crd/$f" "$tmp/$f"
		done
		chmod 0755 "$tmp"
		rm -rf "$dir"
		# Another tools.sh fetching them at the same time may have moved its copy in first.
		if ! mv -T "$tmp" "$dir" 2>/dev/null; then
			[[ -s $dir/${files[0]} && -s $dir/${files[1]} ]] || die "could not move the monitoring CRDs into $dir"
		fi
	fi
	found "$dir"
}

# Pinned versions.
GOLANGCI_LINT_VERSION=v2.15.0
# Redocly CLI 2.x runs on Node 20.19+ (20.x) or 22.12+.
REDOCLY_VERSION=2.77.0
KUBERNETES_VERSION=v1.33.13
COREDNS_VERSION=v1.12.4
OIDC_PROVIDER_VERSION=9.13.3
# npm's axe-core: the accessibility rules the console's browser test injects into every page. Its
# axe.min.js must hash to AXE_CORE_SHA256 (npm checks the tarball against the registry's integrity;
# this pins the file itself, so a changed package under the same version is refused).
AXE_CORE_VERSION=4.14.1
AXE_CORE_SHA256=29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c
JAEGER_VERSION=v1.76.0 # the module's v1 tags carry Jaeger v2 (v1.76.0 = Jaeger v2.13)
SQUAWK_VERSION=2.66.0 # squawk-cli, the PostgreSQL migration linter of `make lint`
PROMETHEUS_OPERATOR_VERSION=v0.94.0 # the release whose CRDs the chart's ServiceMonitor and PrometheusRule must pass

case "${1:-}" in
golangci-lint)
	go_tool golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION"
	;;
# Further tools (each helper of the test suite adds its arm here):
helm)
	go_tool helm helm.sh/helm/v3/cmd/helm v3.22.0
	;;
nats)
	# The NATS CLI: bench/events/run.sh's `nats bench` beside the relay's publishing.
	go_tool nats github.com/nats-io/natscli/nats v0.5.0
	;;
podman)
	# Debian's podman; the tests run it with runc (crun fails on hosts in cgroups hybrid mode).
	have podman && have runc || apt_install podman runc
	found "$(command -v podman)"
	;;
prometheus | promtool)
	# Debian's package holds both; its own service is not needed (tests run a
	# private server with their own configuration on a loopback port).
	have "$1" || apt_install prometheus
	found "$(command -v "$1")"
	;;
jaeger)
	go_module_tool jaeger github.com/jaegertracing/jaeger "$JAEGER_VERSION" cmd/jaeger
	;;
redocly)
	have node || apt_install nodejs npm
	node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit((a == 20 && b >= 19) || a > 22 || (a == 22 && b >= 12) ? 0 : 1)' ||
		die "redocly $REDOCLY_VERSION needs Node.js 20.19+ or 22.12+ (found $(node --version)): install a newer nodejs"
	npm_tool redocly @redocly/cli "$REDOCLY_VERSION"
	;;
squawk)
	# npm's squawk-cli (a prebuilt binary in the package): `make lint` runs it over migrations/*.up.sql.
	have node || apt_install nodejs npm
	npm_tool squawk squawk-cli "$SQUAWK_VERSION"
	;;
oidc-provider)
	# npm's oidc-provider (an OpenID-certified OAuth 2.0 server), for the end-to-end test of tokens
	# from an identity provider by the client-credentials grant; prints the folder whose
	# node_modules holds it (cmd/fulfillment/testdata/oidc-provider.mjs imports it from there).
	have node || apt_install nodejs npm
	dir="$TOOLS_DIR/oidc-provider-$OIDC_PROVIDER_VERSION"
	if [[ ! -f $dir/node_modules/oidc-provider/package.json ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "oidc-provider $OIDC_PROVIDER_VERSION is not installed (unset TOOLS_NO_INSTALL)"
		log "installing oidc-provider@$OIDC_PROVIDER_VERSION into $dir (once)"
		mkdir -p "$dir"
		npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts "oidc-provider@$OIDC_PROVIDER_VERSION" >&2
	fi
	found "$dir"
	;;
axe-core)
	# Not an executable: the path of axe.min.js, which cmd/fulfillment's console browser test reads
	# and evaluates in each page. Installed into a scratch folder, checked, then moved into place.
	dir="$TOOLS_DIR/axe-core-$AXE_CORE_VERSION"
	file="$dir/node_modules/axe-core/axe.min.js"
	if [[ ! -f $file ]]; then
		[[ ${TOOLS_NO_INSTALL:-0} == 1 ]] && die "axe-core $AXE_CORE_VERSION is not installed (unset TOOLS_NO_INSTALL)"
		have npm || apt_install nodejs npm
		log "installing axe-core@$AXE_CORE_VERSION into $dir (once)"
		mkdir -p "$TOOLS_DIR"
		tmp=$(mktemp -d "$TOOLS_DIR/axe-core.XXXXXX")
		# shellcheck disable=SC2064 # expand $tmp now
		trap "rm -rf '$tmp'" EXIT
		npm install --prefix "$tmp" --no-save --no-audit --no-fund --ignore-scripts "axe-core@$AXE_CORE_VERSION" >&2
		got=$(sha256sum "$tmp/node_modules/axe-core/axe.min.js" | cut -d' ' -f1)
		[[ $got == "$AXE_CORE_SHA256" ]] || die "axe-core $AXE_CORE_VERSION: axe.min.js has SHA-256 $got, want $AXE_CORE_SHA256"
		# Another tools.sh installing it at the same time may have moved its copy in first.
		if ! mv -T "$tmp" "$dir" 2>/dev/null; then
			[[ -f $file ]] || die "could not move axe-core into $dir"
		fi
	fi
	sha256sum --status -c <<<"$AXE_CORE_SHA256  $file" || die "$file does not hash to the pinned SHA-256: remove $dir"
	found "$file"
	;;
chromium)
	# Debian's chromium: the headless browser of the API reference page's test.
	have chromium || apt_install chromium
	found "$(command -v chromium)"
	;;
valgrind | callgrind_control)
	# Debian's valgrind: callgrind counts the instructions per request of
	# bench/reads/run.sh with INSTRUCTIONS=1 and of bench/intake/instructions.sh.
	have "$1" || apt_install valgrind
	found "$(command -v "$1")"
	;;
kube-apiserver | kube-controller-manager | kube-scheduler | kubelet | kube-proxy | kubectl)
	kubernetes_tool "$1"
	;;
coredns)
	go_tool coredns github.com/coredns/coredns "$COREDNS_VERSION"
	;;
containerd | ctr | etcd | conntrack | iptables | iptables-save | nsenter)
	# Debian's packages for the single-node cluster of deploy/'s cluster test: containerd (with
	# ctr), runc, the CNI plugins (bridge, host-local, loopback, portmap), etcd, iptables, conntrack.
	if ! have containerd || ! have ctr || ! have runc || ! have etcd || ! have conntrack || ! have iptables ||
		! [[ -x /usr/lib/cni/bridge ]]; then
		apt_install containerd runc containernetworking-plugins etcd-server iptables conntrack
	fi
	found "$(command -v "$1")"
	;;
monitoring-crds)
	# Not an executable: the directory holding monitoring.coreos.com_servicemonitors.yaml and
	# monitoring.coreos.com_prometheusrules.yaml.
	monitoring_crds
	;;
"" | -h | --help)
	sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
	;;
*) die "unknown tool $1" ;;
esac
