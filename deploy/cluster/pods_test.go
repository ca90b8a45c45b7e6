package cluster_test

// The server pods of the platform team's day: listing them, waiting for them
// to be ready and serving, evicting one under its disruption budget.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

type serverPod struct {
	name, ip, version string
	created           time.Time
	ready, deleting   bool
}

// serverPods lists the release's server pods, oldest first.
func serverPods(t *testing.T, c *cluster) []serverPod {
	t.Helper()
	pods, err := listServerPods(c)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

func listServerPods(c *cluster) ([]serverPod, error) {
	out, err := c.kubectl(time.Minute, "-n", namespace, "get", "pods", "-l", serverSelector, "-o", "json")
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string            `json:"name"`
				CreationTimestamp time.Time         `json:"creationTimestamp"`
				DeletionTimestamp *time.Time        `json:"deletionTimestamp"`
				Labels            map[string]string `json:"labels"`
			} `json:"metadata"`
			Status struct {
				PodIP      string `json:"podIP"`
				Conditions []struct{ Type, Status string }
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return nil, err
	}
	var pods []serverPod
	for _, i := range list.Items {
		p := serverPod{name: i.Metadata.Name, ip: i.Status.PodIP, version: i.Metadata.Labels["app.kubernetes.io/version"],
			created: i.Metadata.CreationTimestamp, deleting: i.Metadata.DeletionTimestamp != nil}
		for _, cond := range i.Status.Conditions {
			if cond.Type == "Ready" && cond.Status == "True" {
				p.ready = true
			}
		}
		pods = append(pods, p)
	}
	slices.SortFunc(pods, func(a, b serverPod) int { return a.created.Compare(b.created) })
	return pods, nil
}

// waitPods waits until exactly n server pods of version exist, all Ready,
// none terminating.
func waitPods(c *cluster, n int, version string) error {
	deadline := time.Now().Add(3 * time.Minute)
	var last []serverPod
	for time.Now().Before(deadline) {
		pods, err := listServerPods(c)
		if err == nil {
			last = pods
			ok := len(pods) == n
			for _, p := range pods {
				ok = ok && p.ready && !p.deleting && p.version == version
			}
			if ok {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("after 3m the server pods are %+v; want %d Ready pods of %s", last, n, version)
}

// waitServing waits for two Ready pods of version and checks that each one
// reports that version itself (fulfillment_build_info on /metrics).
func waitServing(t *testing.T, c *cluster, version string) {
	t.Helper()
	if err := waitPods(c, 2, version); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`fulfillment_build_info\{[^}]*version="([^"]*)"`)
	for _, p := range serverPods(t, c) {
		status, body := get(t, c, "http://"+p.ip+":8080/metrics")
		m := re.FindStringSubmatch(body)
		if status != http.StatusOK || m == nil || m[1] != version {
			t.Fatalf("pod %s /metrics: status %d, build info %v; want version %s", p.name, status, m, version)
		}
	}
}

// get is one GET from inside the cluster's network namespace.
func get(t *testing.T, c *cluster, url string) (int, string) {
	t.Helper()
	status, body, err := tryGet(c, url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return status, body
}

func tryGet(c *cluster, url string) (int, string, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: c.dial, DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// waitOK GETs url until it answers 200, for up to 30 s: kube-proxy programs
// a new Service's endpoints a moment after the pods are Ready, and until
// then the Service refuses connections.
func waitOK(c *cluster, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body, err := tryGet(c, url)
		switch {
		case err == nil && status == http.StatusOK:
			return nil
		case err == nil:
			err = fmt.Errorf("%d %s", status, body)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not 200 after 30 s: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitDisruptionAllowed waits until the PodDisruptionBudget's controller has
// seen both pods healthy, so that one eviction is allowed.
func waitDisruptionAllowed(c *cluster) error {
	deadline := time.Now().Add(time.Minute)
	var out string
	for time.Now().Before(deadline) {
		var err error
		out, err = c.kubectl(time.Minute, "-n", namespace, "get", "pdb", fullname, "-o", "jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}")
		if err == nil && strings.TrimSpace(out) == "2/1" {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("the PodDisruptionBudget's healthy/allowed is %q after 1m, want 2/1", out)
}

// evict asks the API server to evict a pod (the eviction subresource, as a
// node drain does).
func evict(c *cluster, pod string) error {
	body := fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q}}`, pod, namespace)
	file := filepath.Join(c.state, "eviction-"+pod+".json")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		return err
	}
	_, err := c.kubectl(time.Minute, "create", "--raw", "/api/v1/namespaces/"+namespace+"/pods/"+pod+"/eviction", "-f", file)
	return err
}
