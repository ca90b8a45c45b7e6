#!/usr/bin/env bash
# scripts/cluster.sh — a single-node Kubernetes confined to a network namespace of its own, for the
# chart's real-cluster test (deploy/cluster). Run as root.
#
#   scripts/cluster.sh up STATE     make the cluster with all its state under the empty directory
#                                   STATE; prints the settings (NAME=VALUE lines) on stdout
#   scripts/cluster.sh down STATE   stop and remove everything `up` made (also after a failed or
#                                   interrupted `up`); safe to run twice
#   scripts/cluster.sh run STATE CMD...   run CMD inside the cluster's network namespace
#
# Inside the namespace: a veth pair carries the node's address (this kernel has no dummy driver), with
# no default route, so nothing can leave it; etcd, containerd (runc, CNI bridge), the API server,
# controller manager, scheduler, kubelet, kube-proxy (iptables), CoreDNS, a PostgreSQL for the pods
# and a NATS JetStream server (the pods' events broker) run there. Processes enter only the network namespace (nsenter --net): `ip netns exec` would also
# remount /sys and hide cgroup v1 from the kubelet and runc. Pods live under a cgroup of their own,
# containerd's pod namespaces and mounts under STATE, so that `down` finds all of them.
#
# Binaries: Kubernetes and CoreDNS from scripts/tools.sh (built once into its cache), containerd,
# runc, CNI plugins, etcd, iptables and conntrack from Debian, PostgreSQL (15 here) and nats-server
# (scripts/nats.sh installs it) from Debian.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=$ROOT/scripts/tools.sh

NODE_IP=172.31.255.1  # the node's address, on the veth end node0 inside the namespace
NODE_NET=172.31.255.0/24
POD_CIDR=10.88.0.0/16
SERVICE_CIDR=10.96.0.0/24
PAUSE_IMAGE=localhost/fulfillment-test/pause:1
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)} # Debian's newest
PG_PORT=5432
NATS_BIN=${NATS_BIN:-$(command -v nats-server || echo /usr/sbin/nats-server)}
NATS_PORT=4222

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}

usage() {
	sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

[[ $# -ge 2 ]] || usage
cmd=$1
STATE=$(cd "$2" 2>/dev/null && pwd || printf %s "${2%/}")
shift 2
[[ $EUID == 0 ]] || die "needs root (network namespaces, mounts, cgroups)"
# The run's identity: the namespace, cgroup and interface names derive from it, so that two runs on
# one machine never meet.
ID=$(printf '%s' "$STATE" | sha256sum | cut -c1-8)
NETNS=fk8s-$ID
CGROUP=fk8s-$ID
NS=(nsenter "--net=/run/netns/$NETNS")

# The host-wide kernel settings the kubelet changes whatever its configuration says; `down` puts
# back what `up` found.
KERNEL_SYSCTLS=(vm/overcommit_memory kernel/panic kernel/panic_on_oops)

cgroup_dirs() { # every cgroup v1 hierarchy (and the v2 one when mounted) with the run's cgroup
	local d
	for d in /sys/fs/cgroup/*/ /sys/fs/cgroup/unified/; do
		[[ -d $d$CGROUP ]] && printf '%s\n' "$d$CGROUP"
	done
	return 0
}

# start NAME CMD...: CMD in the namespace, in the background, its output in STATE/log/NAME.log, its
# pid in STATE/pids/NAME.
start() {
	local name=$1
	shift
	setsid "${NS[@]}" "$@" </dev/null >"$STATE/log/$name.log" 2>&1 &
	echo $! >"$STATE/pids/$name"
}

# wait_for WHAT SECONDS CMD...: retry CMD every 0.2 s until it succeeds, or fail showing the logs.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	log "timed out after ${secs}s waiting for $what"
	tail -n 30 "$STATE"/log/*.log >&2 || true
	return 1
}

kubectl_() { "${NS[@]}" "$KUBECTL" --kubeconfig "$STATE/admin.kubeconfig" "$@"; }

kubeconfig() { # kubeconfig FILE TOKEN
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: https://$NODE_IP:6443
      certificate-authority: $STATE/pki/apiserver/apiserver.crt
contexts:
  - name: local
    context: {cluster: local, user: user, namespace: default}
current-context: local
users:
  - name: user
    user: {token: $2}
EOF
}

up() {
	[[ -z $(ls -A "$STATE") ]] || die "$STATE is not empty"
	local bin c
	declare -gA BIN
	for c in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl coredns \
		containerd ctr etcd iptables conntrack; do
		bin=$("$TOOLS" "$c") || die "scripts/tools.sh $c failed"
		BIN[$c]=$bin
	done
	KUBECTL=${BIN[kubectl]}
	[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback ]] ||
		die "CNI plugins missing in /usr/lib/cni (Debian: containernetworking-plugins)"
	[[ -x $PG_BIN/initdb ]] || die "PostgreSQL's server programs are missing in /usr/lib/postgresql/*/bin (Debian: postgresql)"
	id postgres >/dev/null 2>&1 || die "no postgres user (Debian: postgresql)"
	[[ -x $NATS_BIN ]] || die "nats-server is missing (Debian: nats-server; scripts/nats.sh installs it)"

	# Made first, so that `down` finds what to undo whatever fails next.
	mkdir -p "$STATE"/{log,pids,pki/apiserver,etcd,kubelet,pod-logs,cni/net.d,cni/ipam,containerd,coredns,nats}
	chmod 755 "$STATE"
	local s
	for s in "${KERNEL_SYSCTLS[@]}"; do printf '%s=%s\n' "$s" "$(cat "/proc/sys/$s")"; done >"$STATE/kernel-sysctls"

	# The network namespace: loopback, and the node's address on one end of a veth pair whose both
	# ends stay inside; routes only to the node's, the pods' and the services' networks.
	ip netns add "$NETNS"
	"${NS[@]}" ip link set lo up
	"${NS[@]}" ip link add node0 type veth peer name node1
	"${NS[@]}" ip addr add "$NODE_IP/24" dev node0
	"${NS[@]}" ip link set node1 up
	"${NS[@]}" ip link set node0 up
	"${NS[@]}" ip route add "$SERVICE_CIDR" dev node0 src "$NODE_IP"
	"${NS[@]}" sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'

	# The pods' cgroup: the kubelet's cgroupRoot, in every hierarchy.
	for c in /sys/fs/cgroup/*/; do
		[[ -e ${c}cgroup.procs ]] || continue
		mkdir -p "$c$CGROUP"
		if [[ -e ${c}cpuset.cpus ]]; then
			cat "${c}cpuset.cpus" >"$c$CGROUP/cpuset.cpus"
			cat "${c}cpuset.mems" >"$c$CGROUP/cpuset.mems"
		fi
	done

	# Credentials: a token per component (all cluster administrators: nothing but this test uses the
	# cluster), the API server's self-signed serving certificate, the service-account signing key.
	local name
	: >"$STATE/tokens.csv"
	for name in admin kubelet controller-manager scheduler kube-proxy coredns; do
		local token
		token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
		printf '%s,%s,%s,"system:masters"\n' "$token" "$([[ $name == kubelet ]] && echo system:node:node || echo "$name")" "$name" >>"$STATE/tokens.csv"
		kubeconfig "$STATE/$name.kubeconfig" "$token"
	done
	chmod 600 "$STATE/tokens.csv" "$STATE"/*.kubeconfig
	openssl genrsa -out "$STATE/pki/sa.key" 2048 2>/dev/null
	openssl rsa -in "$STATE/pki/sa.key" -pubout -out "$STATE/pki/sa.pub" 2>/dev/null
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=kube-apiserver" \
		-keyout "$STATE/pki/apiserver/apiserver.key" -out "$STATE/pki/apiserver/apiserver.crt" \
		-addext "subjectAltName=IP:$NODE_IP,IP:127.0.0.1,IP:${SERVICE_CIDR%.0/24}.1,DNS:kubernetes,DNS:kubernetes.default.svc,DNS:localhost" 2>/dev/null

	# PostgreSQL for the pods: a private cluster owned by postgres, on the node's address.
	mkdir -p "$STATE/pg/data" "$STATE/pg/run"
	: >"$STATE/log/postgres.log"
	chown -R postgres:postgres "$STATE/pg" "$STATE/log/postgres.log"
	runuser -u postgres -- "$PG_BIN/initdb" -D "$STATE/pg/data" -U postgres -A trust --no-sync >"$STATE/log/initdb.log" 2>&1 ||
		{ cat "$STATE/log/initdb.log" >&2; die "initdb failed"; }
	echo "host all all 0.0.0.0/0 trust" >>"$STATE/pg/data/pg_hba.conf"
	"${NS[@]}" runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$STATE/pg/data" -l "$STATE/log/postgres.log" -w -t 60 \
		-o "-c listen_addresses=$NODE_IP -c port=$PG_PORT -c unix_socket_directories=$STATE/pg/run -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start >/dev/null || { cat "$STATE/log/postgres.log" >&2; die "PostgreSQL did not start"; }

	# NATS JetStream for the pods' events, on the node's address, its store under STATE.
	start nats "$NATS_BIN" -a "$NODE_IP" -p "$NATS_PORT" -js -sd "$STATE/nats"
	wait_for "nats-server" 30 "${NS[@]}" bash -c "exec 9<>/dev/tcp/$NODE_IP/$NATS_PORT"

	# etcd's data on a tmpfs: its fsyncs would make the API server slow on a busy disk.
	mount -t tmpfs -o size=512m,mode=0700 fk8s-etcd "$STATE/etcd"
	start etcd "${BIN[etcd]}" --name node --data-dir "$STATE/etcd" \
		--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
		--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster node=http://127.0.0.1:2380 --logger zap --log-level warn

	cat >"$STATE/containerd/config.toml" <<EOF
version = 2
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]
[grpc]
  address = "$STATE/containerd/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The VM refuses the sandbox's oom_score_adj of -998.
  restrict_oom_score_adj = true
  # The pods' network namespaces under STATE, where down finds them.
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  enable_selinux = false
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$STATE/containerd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
	cat >"$STATE/cni/net.d/10-pods.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$NETNS",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {"type": "host-local", "dataDir": "$STATE/cni/ipam", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}]}
    }
  ]
}
EOF
	start containerd "${BIN[containerd]}" --config "$STATE/containerd/config.toml"
	wait_for containerd 30 "${BIN[ctr]}" --address "$STATE/containerd/containerd.sock" version

	start kube-apiserver "${BIN[kube-apiserver]}" \
		--etcd-servers=http://127.0.0.1:2379 --advertise-address="$NODE_IP" --secure-port=6443 \
		--tls-cert-file="$STATE/pki/apiserver/apiserver.crt" --tls-private-key-file="$STATE/pki/apiserver/apiserver.key" \
		--token-auth-file="$STATE/tokens.csv" --authorization-mode=Node,RBAC \
		--service-cluster-ip-range="$SERVICE_CIDR" --service-node-port-range=30000-32767 \
		--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$STATE/pki/sa.pub" \
		--service-account-signing-key-file="$STATE/pki/sa.key" --profiling=false \
		--kubelet-preferred-address-types=InternalIP
	wait_for "the API server" 60 kubectl_ get --raw /readyz

	start kube-controller-manager "${BIN[kube-controller-manager]}" \
		--kubeconfig="$STATE/controller-manager.kubeconfig" --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" \
		--authorization-kubeconfig="$STATE/controller-manager.kubeconfig" --leader-elect=false \
		--bind-address=127.0.0.1 --service-account-private-key-file="$STATE/pki/sa.key" \
		--root-ca-file="$STATE/pki/apiserver/apiserver.crt" --use-service-account-credentials=false \
		--cluster-cidr="$POD_CIDR" --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false
	start kube-scheduler "${BIN[kube-scheduler]}" --kubeconfig="$STATE/scheduler.kubeconfig" \
		--authentication-kubeconfig="$STATE/scheduler.kubeconfig" --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
		--leader-elect=false --bind-address=127.0.0.1 --profiling=false

	: >"$STATE/resolv.conf"
	cat >"$STATE/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP
containerRuntimeEndpoint: unix://$STATE/containerd/containerd.sock
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
resolvConf: $STATE/resolv.conf
podLogsDir: $STATE/pod-logs
failSwapOn: false
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 50Mi, nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
nodeStatusReportFrequency: 10s
# Lowering it needs CAP_SYS_RESOURCE, which this kind of VM withholds.
oomScoreAdj: 0
EOF
	start kubelet "${BIN[kubelet]}" --config="$STATE/kubelet/config.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
		--root-dir="$STATE/kubelet" --hostname-override=node --node-ip="$NODE_IP" --v=1

	cat >"$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
mode: iptables
hostnameOverride: node
clusterCIDR: $POD_CIDR
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Service traffic from a pod back to a pod on the same bridge returns through the node (no
# br_netfilter needed).
iptables: {masqueradeAll: true, minSyncPeriod: 0s, syncPeriod: 30s}
# Leave the kernel's conntrack settings alone (some are host-wide).
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
oomScoreAdj: 0
EOF
	start kube-proxy "${BIN[kube-proxy]}" --config="$STATE/kube-proxy.yaml"

	cat >"$STATE/coredns/Corefile" <<EOF
.:53 {
    bind $NODE_IP
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $STATE/coredns.kubeconfig local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
EOF
	start coredns "${BIN[coredns]}" -conf "$STATE/coredns/Corefile"

	wait_for "node Ready" 90 sh -c "'${NS[0]}' '${NS[1]}' '$KUBECTL' --kubeconfig '$STATE/admin.kubeconfig' get node node -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
	wait_for "the default service account" 30 kubectl_ -n default get serviceaccount default

	cat <<EOF
NETNS=$NETNS
NODE_IP=$NODE_IP
KUBECONFIG=$STATE/admin.kubeconfig
KUBECTL=$KUBECTL
CTR=${BIN[ctr]}
CONTAINERD_ADDRESS=$STATE/containerd/containerd.sock
PAUSE_IMAGE=$PAUSE_IMAGE
PG_HOST=$NODE_IP
PG_PORT=$PG_PORT
PG_SOCKET_DIR=$STATE/pg/run
NATS_URL=nats://$NODE_IP:$NATS_PORT
EOF
}

# kill_pidfile NAME: stop the process recorded by start (TERM, then KILL after 10 s).
kill_pidfile() {
	local f=$STATE/pids/$1 pid i
	[[ -f $f ]] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

# kill_cgroup: kill every process in the pods' cgroup (containers and sandboxes), until none is left.
kill_cgroup() {
	local i d pids
	for ((i = 0; i < 50; i++)); do
		pids=$(cgroup_dirs | while read -r d; do find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null; done | sort -u)
		[[ -z $pids ]] && return 0
		# shellcheck disable=SC2086 # one pid per word
		kill -KILL $pids 2>/dev/null || true
		sleep 0.2
	done
	log "processes left in cgroup $CGROUP: $pids"
}

down() {
	local name pid m i d s
	[[ -d $STATE/pids ]] || [[ -e /run/netns/$NETNS ]] || return 0
	# The kubelet first (it would restart what follows), then every container, then the daemons.
	kill_pidfile kubelet
	kill_cgroup
	for name in kube-proxy coredns kube-scheduler kube-controller-manager kube-apiserver containerd etcd nats; do
		kill_pidfile "$name"
	done
	# containerd's shims (one per pod) outlive containerd: they are the processes that name its socket.
	for pid in $(pgrep -f -- "-address $STATE/containerd/containerd.sock" || true); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	if [[ -f $STATE/pg/data/postmaster.pid ]]; then
		runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$STATE/pg/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	fi
	# Mounts under STATE (container roots, shm, pod namespaces, kubelet volumes), deepest first.
	for ((i = 0; i < 5; i++)); do
		mapfile -t m < <(awk -v p="$STATE/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
		[[ ${#m[@]} == 0 ]] && break
		for d in "${m[@]}"; do umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null || true; done
	done
	# Cgroups the kubelet and runc made under the run's own, deepest first.
	for ((i = 0; i < 5; i++)); do
		d=$(cgroup_dirs)
		[[ -z $d ]] && break
		# shellcheck disable=SC2086 # one directory per word
		find $d -depth -type d -exec rmdir {} + 2>/dev/null || true
		sleep 0.2
	done
	[[ -e /run/netns/$NETNS ]] && ip netns delete "$NETNS"
	if [[ -f $STATE/kernel-sysctls ]]; then
		while IFS== read -r s v; do echo "$v" >"/proc/sys/$s"; done <"$STATE/kernel-sysctls"
	fi
	# Files outside STATE: the kubelet's links to container logs, the CNI library's result cache.
	find /var/log/containers -maxdepth 1 -type l -lname "$STATE/*" -delete 2>/dev/null || true
	# (each names the pod's network namespace, which lies under STATE).
	if [[ -d /var/lib/cni/results ]]; then
		find /var/lib/cni/results -maxdepth 1 -type f -exec grep -lsF "$STATE/" {} + | while read -r f; do rm -f "$f"; done || true
	fi
	rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
	# Everything else is files under STATE; the caller removes STATE itself.
	find "$STATE" -mindepth 1 -xdev -delete 2>/dev/null || rm -rf --one-file-system "${STATE:?}"/* || true
	local left=""
	[[ -e /run/netns/$NETNS ]] && left+=" netns $NETNS"
	[[ -n $(cgroup_dirs) ]] && left+=" cgroup $CGROUP"
	[[ -n $(awk -v p="$STATE/" 'index($5, p) == 1' /proc/self/mountinfo) ]] && left+=" mounts under $STATE"
	[[ -n $(pgrep -f -- "$STATE/" || true) ]] && left+=" processes naming $STATE"
	[[ -z $left ]] || die "left behind:$left"
	return 0
}

case $cmd in
up)
	# A failed `up` undoes itself.
	trap 'status=$?; if [[ $status != 0 ]]; then log "up failed; tearing down"; down || true; fi' EXIT
	trap 'exit 130' INT TERM
	up
	;;
down) down ;;
run) exec "${NS[@]}" "$@" ;;
*) usage ;;
esac
