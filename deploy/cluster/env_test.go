package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acme3pl/fulfillment/deploy/internal/testenv"
)

// cluster is a running scripts/cluster.sh cluster: its state directory and
// the settings `cluster.sh up` printed.
type cluster struct {
	t     *testing.T
	state string
	env   map[string]string
	nsFD  int // the cluster's network namespace, for dialing into it
}

// startCluster brings a cluster up under a fresh state directory and
// registers its teardown: at the test's end (pass or fail) and on SIGINT or
// SIGTERM. On failure the cluster's logs are printed first.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	state, err := os.MkdirTemp("/tmp", "fk8s-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, state: state, nsFD: -1}
	script := filepath.Join(testenv.Root(t), "scripts", "cluster.sh")

	var once sync.Once
	teardown := func() {
		once.Do(func() {
			if c.nsFD >= 0 {
				_ = unix.Close(c.nsFD)
			}
			out, err := runCmd(3*time.Minute, "", nil, script, "down", state)
			if err != nil {
				t.Errorf("cluster.sh down: %v\n%s", err, out)
				return
			}
			if err := os.RemoveAll(state); err != nil {
				t.Errorf("removing %s: %v", state, err)
			}
		})
	}
	// An interrupted test still tears the cluster down (the daemons run in sessions of their own,
	// so a terminal's ^C does not reach them).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(os.Stderr, "cluster test: %v: tearing the cluster down\n", s)
			teardown()
			os.Exit(130)
		case <-done:
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			c.dumpDiagnostics()
		}
		teardown()
		signal.Stop(sig)
		close(done)
	})

	out, err := runCmd(10*time.Minute, "", nil, script, "up", state)
	if err != nil {
		t.Fatalf("cluster.sh up: %v", err)
	}
	c.env = map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			c.env[k] = v
		}
	}
	for _, k := range []string{"NETNS", "NODE_IP", "KUBECONFIG", "KUBECTL", "CTR", "CONTAINERD_ADDRESS", "PAUSE_IMAGE", "PG_SOCKET_DIR", "NATS_URL"} {
		if c.env[k] == "" {
			t.Fatalf("cluster.sh up printed no %s:\n%s", k, out)
		}
	}
	fd, err := unix.Open("/run/netns/"+c.env["NETNS"], unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("opening the cluster's network namespace: %v", err)
	}
	c.nsFD = fd
	return c
}

// dial connects from inside the cluster's network namespace: the socket is
// made by a thread switched into it, and stays there.
func (c *cluster) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread, now in another namespace, ends with this goroutine.
		runtime.LockOSThread()
		if err := unix.Setns(c.nsFD, unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("entering the cluster's network namespace: %w", err)}
			return
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		ch <- result{conn, err}
	}()
	r := <-ch
	return r.conn, r.err
}

// inNS returns the command line that runs name inside the cluster's network namespace.
func (c *cluster) inNS(name string, args ...string) (string, []string) {
	return "nsenter", append([]string{"--net=/run/netns/" + c.env["NETNS"], name}, args...)
}

// kubectl runs kubectl against the cluster and returns its stdout.
func (c *cluster) kubectl(timeout time.Duration, args ...string) (string, error) {
	name, argv := c.inNS(c.env["KUBECTL"], append([]string{"--kubeconfig", c.env["KUBECONFIG"]}, args...)...)
	return runCmd(timeout, "", nil, name, argv...)
}

func (c *cluster) mustKubectl(args ...string) string {
	c.t.Helper()
	out, err := c.kubectl(2*time.Minute, args...)
	if err != nil {
		c.t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// helm runs helm against the cluster, with its caches under the state directory.
func (c *cluster) helm(timeout time.Duration, args ...string) (string, error) {
	helmBin := testenv.Tool(c.t, "helm")
	env := []string{"KUBECONFIG=" + c.env["KUBECONFIG"], "HELM_CACHE_HOME=" + c.state + "/helm/cache",
		"HELM_CONFIG_HOME=" + c.state + "/helm/config", "HELM_DATA_HOME=" + c.state + "/helm/data"}
	name, argv := c.inNS(helmBin, args...)
	return runCmd(timeout, "", env, name, argv...)
}

func (c *cluster) mustHelm(timeout time.Duration, args ...string) string {
	c.t.Helper()
	out, err := c.helm(timeout, args...)
	if err != nil {
		c.t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// dumpDiagnostics prints what explains a failure: the cluster's objects and
// events, the release's pod logs, and the tails of the daemons' logs.
func (c *cluster) dumpDiagnostics() {
	if c.env == nil {
		return
	}
	for _, args := range [][]string{
		{"get", "nodes,pods,services,endpointslices,jobs,pdb", "-A", "-o", "wide"},
		{"get", "events", "-A", "--sort-by=.lastTimestamp"},
		{"-n", namespace, "describe", "deployment,pods"},
		{"-n", namespace, "logs", "--all-containers", "--prefix", "--tail=60", "-l", "app.kubernetes.io/instance=" + release},
	} {
		out, err := c.kubectl(time.Minute, args...)
		c.t.Logf("--- kubectl %s (err %v)\n%s", strings.Join(args, " "), err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(c.state, "log", "*.log"))
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		c.t.Logf("--- tail of %s\n%s", filepath.Base(f), strings.Join(lines, "\n"))
	}
}

// runCmd runs a command with extra environment variables and returns its
// stdout; a failure carries its stderr. On timeout the process group gets
// SIGTERM first (scripts clean up on it), then SIGKILL.
func runCmd(timeout time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (timed out after %v)", err, timeout)
		}
		return stdout.String(), &testenv.Error{Cmd: filepath.Base(name) + " " + strings.Join(args, " "), Err: err, Stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// hostNetwork is the state of the machine's own network namespace that the
// cluster must leave as it found it.
type hostNetwork map[string]string

func snapshotHostNetwork(t *testing.T) hostNetwork {
	t.Helper()
	s := hostNetwork{}
	for name, argv := range map[string][]string{
		"addresses": {"ip", "-d", "address", "show"},
		"routes":    {"ip", "route", "show", "table", "all"},
		"routes6":   {"ip", "-6", "route", "show", "table", "all"},
		"rules":     {"ip", "rule", "show"},
		"iptables":  {"iptables-save"},
		"ip6tables": {"ip6tables-save"},
	} {
		out, err := runCmd(time.Minute, "", nil, argv[0], argv[1:]...)
		if err != nil {
			t.Fatalf("snapshot of the host network: %v", err)
		}
		s[name] = normalize(name, out)
	}
	// Network sysctls, but for counters that move on their own.
	var keys []string
	vals := map[string]string{}
	err := filepath.WalkDir("/proc/sys/net", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := filepath.Base(path)
		if d.IsDir() || strings.Contains(base, "count") || strings.Contains(base, "flush") || strings.Contains(base, "stable_secret") {
			return nil
		}
		// Some settings are write-only: what cannot be read is not compared.
		if b, readErr := os.ReadFile(path); readErr == nil {
			keys = append(keys, path)
			vals[path] = strings.TrimSpace(string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot of the network sysctls: %v", err)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, vals[k])
	}
	s["sysctl"] = b.String()
	return s
}

// normalize drops what changes by itself: comments with dates, packet
// counters, address lifetimes.
func normalize(name, out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(name, "ip") && strings.Contains(name, "tables"):
			if i := strings.LastIndex(l, " ["); i > 0 && strings.HasSuffix(l, "]") {
				l = l[:i]
			}
		case name == "addresses":
			if strings.Contains(l, "valid_lft") {
				continue
			}
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// diff lists what differs between two snapshots.
func (s hostNetwork) diff(after hostNetwork) []string {
	var out []string
	for name, before := range s {
		if after[name] == before {
			continue
		}
		b, a := strings.Split(before, "\n"), strings.Split(after[name], "\n")
		inB := map[string]bool{}
		for _, l := range b {
			inB[l] = true
		}
		inA := map[string]bool{}
		for _, l := range a {
			inA[l] = true
		}
		for _, l := range b {
			if !inA[l] {
				out = append(out, name+": - "+l)
			}
		}
		for _, l := range a {
			if !inB[l] {
				out = append(out, name+": + "+l)
			}
		}
	}
	sort.Strings(out)
	return out
}
