package main

// deploy/prometheus/rules.yaml through the real promtool: it is accepted,
// its unit tests (rules_test.yaml) pass, every alert is shown firing and
// staying quiet there, and every alert carries what an on-call engineer
// needs (severity, summary, description, a runbook section that exists).

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

type ruleTestFile struct {
	Tests []struct {
		Name          string `yaml:"name"`
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

func TestPrometheusRules(t *testing.T) {
	promtool := tool(t, "promtool")
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = repoFile("deploy", "prometheus")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	var rules ruleFile
	readYAML(t, repoFile("deploy", "prometheus", "rules.yaml"), &rules)
	var tests ruleTestFile
	readYAML(t, repoFile("deploy", "prometheus", "rules_test.yaml"), &tests)
	runbook, err := os.ReadFile(repoFile("docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(runbook), -1) {
		anchors[githubAnchor(m[1])] = true
	}

	const runbookURL = "https://github.com/acme3pl/fulfillment/blob/main/docs/runbook.md#"
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
			}
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if strings.TrimSpace(r.Annotations[a]) == "" {
					t.Errorf("%s: no %s annotation", r.Alert, a)
				}
			}
			anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], runbookURL)
			if !ok || !anchors[anchor] || anchor != strings.ToLower(r.Alert) {
				t.Errorf("%s: runbook_url %q, want %s%s with that section in docs/runbook.md", r.Alert,
					r.Annotations["runbook_url"], runbookURL, strings.ToLower(r.Alert))
			}
			var fires, quiet bool
			for _, tc := range tests.Tests {
				for _, a := range tc.AlertRuleTest {
					if a.Alertname == r.Alert {
						fires = fires || len(a.ExpAlerts) > 0
						quiet = quiet || len(a.ExpAlerts) == 0
					}
				}
			}
			if !fires || !quiet {
				t.Errorf("%s: rules_test.yaml shows it firing: %v, staying quiet: %v; want both", r.Alert, fires, quiet)
			}
		}
	}
	if alerts < 6 {
		t.Errorf("%d alerts, want at least the six of docs/observability.md", alerts)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// githubAnchor is the fragment GitHub gives a Markdown heading: lower case,
// spaces to hyphens, punctuation other than hyphens and underscores dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}
