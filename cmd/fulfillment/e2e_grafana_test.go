package main

// The Grafana dashboard (deploy/grafana) checked against a real Prometheus:
// every panel's query answers under the end-to-end workload.

import (
	"encoding/json"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// grafanaPanel is what the test reads of a Grafana panel.
type grafanaLink struct {
	URL string `json:"url"`
}

type grafanaPanel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource map[string]any `json:"datasource"`
	Panels     []grafanaPanel `json:"panels"` // of a collapsed row
	Links      []grafanaLink  `json:"links"`
	Targets    []struct {
		RefID    string `json:"refId"`
		Expr     string `json:"expr"`
		Exemplar bool   `json:"exemplar"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Thresholds struct {
				Steps []struct {
					Value *float64 `json:"value"`
				} `json:"steps"`
			} `json:"thresholds"`
			Custom struct {
				ThresholdsStyle struct {
					Mode string `json:"mode"`
				} `json:"thresholdsStyle"`
			} `json:"custom"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

type grafanaDashboard struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []grafanaPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Query      any    `json:"query"`
			Definition string `json:"definition"`
			AllValue   string `json:"allValue"`
		} `json:"list"`
	} `json:"templating"`
	Links []struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	} `json:"links"`
}

func loadDashboard(t *testing.T) grafanaDashboard {
	t.Helper()
	b, err := os.ReadFile(repoFile("deploy", "grafana", "fulfillment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("deploy/grafana/fulfillment.json: %v", err)
	}
	return d
}

// dashboardVars is what Grafana would put for the template variables: every
// namespace, this job, every replica; a window that covers the workload.
var dashboardVars = strings.NewReplacer(
	"$namespace", ".*", "$job", "fulfillment", "$instance", ".*",
	"$__rate_interval", "1m", "$__range", "1m",
)

func checkDashboardQueries(t *testing.T, prom *prometheus) {
	d := loadDashboard(t)
	if d.UID == "" || d.SchemaVersion < 36 {
		t.Errorf("uid %q, schemaVersion %d", d.UID, d.SchemaVersion)
	}
	var rows []string
	var panels []grafanaPanel
	for _, p := range d.Panels {
		if p.Type == "row" {
			rows = append(rows, p.Title)
			panels = append(panels, p.Panels...)
			continue
		}
		panels = append(panels, p)
	}
	if want := []string{"Traffic and errors per route", "Order intake", "Capacity", "Shipments", "Failed orders", "Warehouse", "Billing", "Events"}; !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}

	queries := 0
	for _, p := range panels {
		if p.Datasource["uid"] != "${datasource}" {
			t.Errorf("panel %q: datasource %v, want the ${datasource} variable", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			expr := dashboardVars.Replace(tg.Expr)
			if strings.Contains(expr, "$") {
				t.Errorf("panel %q %s: a variable the test does not know: %s", p.Title, tg.RefID, tg.Expr)
				continue
			}
			samples, err := prom.query(t, expr)
			if err != nil {
				t.Errorf("panel %q %s: %v\n%s", p.Title, tg.RefID, err, expr)
				continue
			}
			if !slices.ContainsFunc(samples, func(s promSample) bool { return !math.IsNaN(s.Value) && !math.IsInf(s.Value, 0) }) {
				t.Errorf("panel %q %s: no series with a number (%d series)\n%s", p.Title, tg.RefID, len(samples), expr)
			}
			if strings.Contains(tg.Expr, "http_server_request_duration_seconds_bucket") && strings.HasPrefix(tg.Expr, "histogram_quantile") {
				if !tg.Exemplar {
					t.Errorf("panel %q %s: a latency query without exemplars (the link to traces)", p.Title, tg.RefID)
				}
				// And a link to the traces of the panel's time range, which needs no exemplar.
				if !slices.ContainsFunc(p.Links, func(l grafanaLink) bool {
					return strings.HasPrefix(l.URL, "/explore?") && strings.Contains(l.URL, "${traces}") && strings.Contains(l.URL, "${__from}")
				}) {
					t.Errorf("panel %q: a latency panel without a link to its time range's traces", p.Title)
				}
			}
		}
		if strings.Contains(p.Title, "5 s") {
			var steps []float64
			for _, s := range p.FieldConfig.Defaults.Thresholds.Steps {
				if s.Value != nil {
					steps = append(steps, *s.Value)
				}
			}
			if !slices.Contains(steps, 5) || p.FieldConfig.Defaults.Custom.ThresholdsStyle.Mode != "line" {
				t.Errorf("panel %q: thresholds %v (%s), want the 5 s budget drawn as a line", p.Title, steps,
					p.FieldConfig.Defaults.Custom.ThresholdsStyle.Mode)
			}
		}
	}
	t.Logf("%d panels, %d queries evaluated", len(panels), queries)

	// The template variables list something to choose from (namespace is
	// empty outside Kubernetes; its "All" is .*).
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := regexp.MustCompile(`^label_values\((.+), (\w+)\)$`).FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, v.Definition)
			continue
		}
		if v.AllValue != ".*" {
			t.Errorf("variable %s: allValue %q, want .*", v.Name, v.AllValue)
		}
		var values []string
		if err := prom.api(t, "/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {dashboardVars.Replace(m[1])}}, &values); err != nil {
			t.Errorf("variable %s: %v", v.Name, err)
		}
		if v.Name != "namespace" && len(values) == 0 {
			t.Errorf("variable %s: no values for %s", v.Name, v.Definition)
		}
	}
}
