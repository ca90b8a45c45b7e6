// Package helm_test checks the chart in fulfillment/ with the real helm: lint,
// the values schema, and every object of `helm template` decoded strictly as
// its Kubernetes kind (the API types of Kubernetes 1.30, the oldest version
// the chart supports: a field that 1.30 does not know is refused), then the
// properties the platform team relies on.
package helm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/acme3pl/fulfillment/deploy/internal/testenv"
)

const (
	chartDir    = "fulfillment"
	allOn       = "testdata/all-on.yaml"
	kubeVersion = "1.30.0"
	release     = "shop"
	uid         = 65532
)

// decoder decodes YAML into the typed object of its apiVersion and kind,
// refusing unknown and duplicate fields and kinds it does not know.
var decoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme,
		autoscalingv2.AddToScheme, networkingv1.AddToScheme, monitoringv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
}()

func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return testenv.Run(5*time.Minute, ".", testenv.Tool(t, "helm"), args...)
}

// manifest is one rendering of the chart, decoded.
type manifest struct {
	objects []runtime.Object
}

// render runs helm template with args and decodes every object strictly.
func render(t *testing.T, args ...string) manifest {
	t.Helper()
	out, err := helm(t, append([]string{"template", release, chartDir, "--kube-version", kubeVersion}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return decodeAll(t, out)
}

func decodeAll(t *testing.T, out string) manifest {
	t.Helper()
	var m manifest
	for _, doc := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(out, -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		obj, gvk, err := decoder.Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("not a valid Kubernetes object: %v\n%s", err, doc)
		}
		if gvk.Kind == "" {
			t.Fatalf("no kind:\n%s", doc)
		}
		m.objects = append(m.objects, obj)
	}
	return m
}

func (m manifest) kinds() []string {
	var kinds []string
	for _, o := range m.objects {
		kinds = append(kinds, reflect.TypeOf(o).Elem().Name())
	}
	slices.Sort(kinds)
	return kinds
}

// one returns the only object of type T, failing unless there is exactly one.
func one[T runtime.Object](t *testing.T, m manifest) T {
	t.Helper()
	var found []T
	for _, o := range m.objects {
		if v, ok := o.(T); ok {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1 (kinds: %v)", len(found), zero, m.kinds())
	}
	return found[0]
}

// named returns the object of type T named name, failing when there is none.
func named[T runtime.Object](t *testing.T, m manifest, name string) T {
	t.Helper()
	for _, o := range m.objects {
		if v, ok := o.(T); ok && o.(metav1.Object).GetName() == name {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T named %s (kinds: %v)", zero, name, m.kinds())
	return zero
}

func none[T runtime.Object](t *testing.T, m manifest) {
	t.Helper()
	for _, o := range m.objects {
		if _, ok := o.(T); ok {
			t.Errorf("unexpected %T %s", o, o.(metav1.Object).GetName())
		}
	}
}

func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

func TestLintStrict(t *testing.T) {
	for name, args := range map[string][]string{"default values": nil, "every optional part on": {"-f", allOn}} {
		t.Run(name, func(t *testing.T) {
			if out, err := helm(t, append([]string{"lint", "--strict", chartDir}, args...)...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// expect is what a rendering must show, from the values it was made with.
type expect struct {
	secretName  string // the Secret the pods read
	secretMade  bool   // the chart makes that Secret
	memoryLimit string
	memPercent  int64
	autoscaling bool
	replicas    int32 // without autoscaling
}

func TestDefaultValues(t *testing.T) {
	m := render(t)
	want := []string{"Deployment", "HorizontalPodAutoscaler", "Job", "Pod", "PodDisruptionBudget", "Service", "ServiceAccount"}
	if got := m.kinds(); !slices.Equal(got, want) {
		t.Fatalf("kinds %v, want %v (the optional parts are off by default)", got, want)
	}
	checkCore(t, m, expect{secretName: "shop-fulfillment", memoryLimit: "256Mi", memPercent: 90, autoscaling: true})
	checkBillingEnv(t, m, map[string]string{"BILLING_TIMEZONE": "UTC", "BILLING_GRACE": "24h", "BILLING_TERMS": "720h",
		"BILLING_COLLECTIONS_AFTER": "720h", "BILLING_INTERVAL": "15m"})
}

// TestBillingValues: each billing value reaches the server's environment.
func TestBillingValues(t *testing.T) {
	m := render(t, "--set", "billing.timezone=America/New_York", "--set", "billing.grace=36h", "--set", "billing.terms=336h",
		"--set", "billing.collectionsAfter=0s", "--set", "billing.interval=1h")
	checkBillingEnv(t, m, map[string]string{"BILLING_TIMEZONE": "America/New_York", "BILLING_GRACE": "36h",
		"BILLING_TERMS": "336h", "BILLING_COLLECTIONS_AFTER": "0s", "BILLING_INTERVAL": "1h"})
}

// checkBillingEnv checks the server's BILLING_* variables, exactly want.
func checkBillingEnv(t *testing.T, m manifest, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, v := range one[*appsv1.Deployment](t, m).Spec.Template.Spec.Containers[0].Env {
		if strings.HasPrefix(v.Name, "BILLING_") {
			got[v.Name] = v.Value
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("billing environment %v, want %v", got, want)
	}
}

func TestEveryOptionalPartOn(t *testing.T) {
	m := render(t, "-f", allOn)
	// The console (console_test.go) adds a Service and an Ingress of its own.
	want := []string{"ConfigMap", "Deployment", "HorizontalPodAutoscaler", "Ingress", "Ingress", "Job", "NetworkPolicy", "Pod",
		"PodDisruptionBudget", "PrometheusRule", "Secret", "Service", "Service", "ServiceAccount", "ServiceMonitor"}
	if got := m.kinds(); !slices.Equal(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	checkCore(t, m, expect{secretName: "fulfillment-credentials", secretMade: true, memoryLimit: "1Gi", memPercent: 90, autoscaling: true})
	checkOptional(t, m)
}

func TestWithoutAutoscaling(t *testing.T) {
	m := render(t, "--set", "autoscaling.enabled=false", "--set", "replicaCount=3", "--set", "secret.name=db-credentials",
		"--set", "resources.limits.memory=500M", "--set", "goMemLimitPercent=80")
	none[*autoscalingv2.HorizontalPodAutoscaler](t, m)
	checkCore(t, m, expect{secretName: "db-credentials", memoryLimit: "500M", memPercent: 80, replicas: 3})
}

// checkOptional checks the parts off by default.
func checkOptional(t *testing.T, m manifest) {
	t.Helper()
	d := one[*appsv1.Deployment](t, m)
	job := one[*batchv1.Job](t, m)
	svc := named[*corev1.Service](t, m, d.Name)

	ing := named[*networkingv1.Ingress](t, m, d.Name)
	var paths []string
	for _, r := range ing.Spec.Rules {
		for _, p := range r.HTTP.Paths {
			paths = append(paths, p.Path)
			if p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix || p.Backend.Service == nil ||
				p.Backend.Service.Name != svc.Name || p.Backend.Service.Port.Name != svc.Spec.Ports[0].Name {
				t.Errorf("Ingress path %+v: want a prefix to the Service's port", p)
			}
		}
	}
	if !slices.Equal(paths, []string{"/v0"}) {
		t.Errorf("Ingress paths %v, want /v0 only", paths)
	}

	np := one[*networkingv1.NetworkPolicy](t, m)
	if !selects(t, &np.Spec.PodSelector, d.Spec.Template.Labels) || !selects(t, &np.Spec.PodSelector, job.Spec.Template.Labels) {
		t.Errorf("NetworkPolicy selects %v: want the server's and the migration's pods", np.Spec.PodSelector)
	}
	// The API's port; the console's rule, when it is on, follows (console_test.go).
	if len(np.Spec.Ingress) == 0 || len(np.Spec.Ingress[0].Ports) != 1 || np.Spec.Ingress[0].Ports[0].Port.String() != "http" {
		t.Errorf("NetworkPolicy ingress %+v: want the API port only in the first rule", np.Spec.Ingress)
	}
	if len(np.Spec.Egress) < 2 {
		t.Errorf("NetworkPolicy egress %+v: want DNS and the database at least", np.Spec.Egress)
	}

	sm := one[*monitoringv1.ServiceMonitor](t, m)
	if !selects(t, &sm.Spec.Selector, svc.Labels) || len(sm.Spec.Endpoints) != 1 ||
		sm.Spec.Endpoints[0].Port != "http" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor %+v: want /metrics on the Service's port", sm.Spec)
	}

	// The rules and the dashboard are the files under deploy/, as they are.
	pr := one[*monitoringv1.PrometheusRule](t, m)
	var file struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}
	if err := yaml.UnmarshalStrict([]byte(testenv.ReadFile(t, "../prometheus/rules.yaml")), &file); err != nil {
		t.Fatalf("deploy/prometheus/rules.yaml: %v", err)
	}
	if len(file.Groups) == 0 || !reflect.DeepEqual(asJSON(t, pr.Spec.Groups), asJSON(t, file.Groups)) {
		t.Errorf("the PrometheusRule's groups differ from deploy/prometheus/rules.yaml")
	}

	cm := one[*corev1.ConfigMap](t, m)
	if cm.Labels["grafana_dashboard"] != "1" || len(cm.Data) != 1 || cm.Data["fulfillment.json"] != testenv.ReadFile(t, "../grafana/fulfillment.json") {
		t.Errorf("dashboard ConfigMap (labels %v, keys %d): want grafana_dashboard=1 and deploy/grafana/fulfillment.json as it is", cm.Labels, len(cm.Data))
	}
}

// The chart as it is distributed: `helm package` copies the linked rules and
// dashboard into the archive, which renders the same objects.
func TestPackagedChart(t *testing.T) {
	dir := t.TempDir()
	out, err := helm(t, "package", chartDir, "--destination", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "fulfillment-*.tgz"))
	if len(archives) != 1 {
		t.Fatalf("helm package wrote %v", archives)
	}
	rendered, err := helm(t, "template", release, archives[0], "--kube-version", kubeVersion, "-f", allOn)
	if err != nil {
		t.Fatal(err)
	}
	checkOptional(t, decodeAll(t, rendered))
}

func TestSchemaRefusesWrongValues(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"a word for a number":         {[]string{"--set-string", "replicaCount=two"}, "replicaCount"},
		"a single replica":            {[]string{"--set", "replicaCount=1"}, "replicaCount"},
		"an unknown setting":          {[]string{"--set", "replicas=3"}, "replicas"},
		"an unreadable memory limit":  {[]string{"--set", "resources.limits.memory=lots"}, "memory"},
		"no memory limit":             {[]string{"--set", "resources.limits.memory=null"}, "memory"},
		"a shutdown timeout in parts": {[]string{"--set", "config.shutdownTimeout=1m30s"}, "shutdownTimeout"},
		"an unknown environment":      {[]string{"--set", "config.environment=staging"}, "environment"},
		"a billing interval in words": {[]string{"--set", "billing.interval=often"}, "interval"},
		"an unknown billing setting":  {[]string{"--set", "billing.zone=UTC"}, "zone"},
		"a Secret without a database": {[]string{"--set", "secret.create=true", "--set", "secret.authSigningKey=k"}, "secret.databaseURL"},
		"an Ingress without a host":   {[]string{"--set", "ingress.enabled=true"}, "ingress.host"},
		"stream replicas past NATS's": {[]string{"--set", "events.streamReplicas=7"}, "streamReplicas"},
		"a duplicate window in days":  {[]string{"--set", "events.duplicateWindow=1d"}, "duplicateWindow"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := helm(t, append([]string{"template", release, chartDir, "--kube-version", kubeVersion}, tc.args...)...)
			if err == nil {
				t.Fatalf("helm template accepted %v:\n%.300s", tc.args, out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the refusal does not name %s: %v", tc.want, err)
			}
		})
	}
}

// The decoder is strict: without this, the checks above could pass on
// objects Kubernetes refuses.
func TestDecoderIsStrict(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field of a built-in kind": "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\nautomountToken: false\n",
		"field newer than Kubernetes 1.30": "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: a, image: a}]\n  resources: {limits: {cpu: 1}}\n",
		"unknown field of a CRD kind":      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: a}\nspec:\n  selector: {}\n  endpoints: [{port: http, paht: /metrics}]\n",
		"duplicate field":                  "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nmetadata: {name: b}\n",
		"unknown kind":                     "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n",
		"wrong type":                       "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: two}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := decoder.Decode([]byte(doc), nil, nil); err == nil {
				t.Fatalf("decoded:\n%s", doc)
			}
		})
	}
}

func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// show prints what a pointer points to.
func show[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// serverEnv is the environment of the server's container in m, by name.
func serverEnv(t *testing.T, m manifest) map[string]corev1.EnvVar {
	t.Helper()
	d := one[*appsv1.Deployment](t, m)
	out := map[string]corev1.EnvVar{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		out[e.Name] = e
	}
	return out
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// Events (docs/events.md): off by default; with events.natsUrl, the broker, the stream and the
// credentials from the named Secret (each key optional), a .creds file mounted read-only.
func TestEventsSettings(t *testing.T) {
	for name := range serverEnv(t, render(t)) {
		if strings.HasPrefix(name, "EVENTS_") {
			t.Errorf("default values set %s: events are off unless events.natsUrl is set", name)
		}
	}
	m := render(t, "-f", allOn)
	env := serverEnv(t, m)
	if env["EVENTS_NATS_URL"].Value != "nats://nats-0.messaging:4222,nats://nats-1.messaging:4222" ||
		env["EVENTS_STREAM"].Value != "FULFILLMENT_EU" || env["EVENTS_NATS_CREDS"].Value != "/var/run/secrets/nats/nats.creds" ||
		env["EVENTS_STREAM_REPLICAS"].Value != "3" || env["EVENTS_STREAM_MAX_AGE"].Value != "720h" ||
		env["EVENTS_DUPLICATE_WINDOW"].Value != "1h" {
		t.Errorf("events env: %v", env)
	}
	for _, key := range []string{"EVENTS_NATS_USER", "EVENTS_NATS_PASSWORD", "EVENTS_NATS_TOKEN"} {
		ref := env[key].ValueFrom
		if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "nats-credentials" || ref.SecretKeyRef.Key != key ||
			ref.SecretKeyRef.Optional == nil || !*ref.SecretKeyRef.Optional {
			t.Errorf("%s: %+v, want the optional key %s of Secret nats-credentials", key, env[key], key)
		}
	}
	d := one[*appsv1.Deployment](t, m)
	pod := d.Spec.Template.Spec
	if len(pod.Volumes) != 1 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != "nats-credentials" ||
		len(pod.Volumes[0].Secret.Items) != 1 || pod.Volumes[0].Secret.Items[0].Key != "fulfillment.creds" {
		t.Fatalf("volumes %+v, want the .creds key of nats-credentials", pod.Volumes)
	}
	mounts := pod.Containers[0].VolumeMounts
	if len(mounts) != 1 || mounts[0].MountPath != "/var/run/secrets/nats" || !mounts[0].ReadOnly {
		t.Errorf("mounts %+v", mounts)
	}
	for _, o := range m.objects {
		if s, ok := o.(*corev1.Secret); ok && s.StringData["EVENTS_NATS_USER"] != "fulfillment" {
			t.Errorf("the chart's Secret lacks EVENTS_NATS_USER: %v", s.StringData)
		}
	}
}
