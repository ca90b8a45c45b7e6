package helm_test

// The properties of the default objects the platform team relies on:
// checkCore, checkSecurity and checkSecretEnv, which the tests of chart_test.go
// run on each rendering.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkCore checks the objects every rendering has.
func checkCore(t *testing.T, m manifest, e expect) {
	t.Helper()
	d := one[*appsv1.Deployment](t, m)
	pod := d.Spec.Template
	if !selects(t, d.Spec.Selector, pod.Labels) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", d.Spec.Selector, pod.Labels)
	}

	// Replicas: at least 2, owned by the autoscaler when there is one.
	if e.autoscaling {
		hpa := one[*autoscalingv2.HorizontalPodAutoscaler](t, m)
		ref := hpa.Spec.ScaleTargetRef
		if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
			t.Errorf("the autoscaler scales %+v, not the Deployment %s", ref, d.Name)
		}
		if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < *hpa.Spec.MinReplicas {
			t.Errorf("autoscaler replicas %s..%d, want at least 2", show(hpa.Spec.MinReplicas), hpa.Spec.MaxReplicas)
		}
		if len(hpa.Spec.Metrics) == 0 {
			t.Error("the autoscaler has no metric")
		}
		// The autoscaler's minimum from the start (no upgrade can find a live
		// Deployment under helm template, so the chart's floor is rendered).
		if d.Spec.Replicas == nil || *d.Spec.Replicas != *hpa.Spec.MinReplicas {
			t.Errorf("replicas %s, want the autoscaler's minimum %d", show(d.Spec.Replicas), *hpa.Spec.MinReplicas)
		}
	} else if d.Spec.Replicas == nil || *d.Spec.Replicas != e.replicas {
		t.Errorf("replicas %s, want %d", show(d.Spec.Replicas), e.replicas)
	}

	// Rolling update that never lowers capacity.
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil || ru.MaxUnavailable == nil ||
		ru.MaxUnavailable.IntValue() != 0 || ru.MaxSurge == nil || ru.MaxSurge.IntValue() < 1 {
		t.Errorf("strategy %+v, want a rolling update with maxUnavailable 0", d.Spec.Strategy)
	}

	spec := pod.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	checkSecurity(t, "server", spec, c)
	if !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("server args %v", c.Args)
	}

	// Probes on the named port, with the timeouts of the service (/readyz answers within 2 s).
	port := map[string]int32{}
	for _, p := range c.Ports {
		port[p.Name] = p.ContainerPort
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no %s probe over HTTP", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || port[p.probe.HTTPGet.Port.String()] == 0 {
			t.Errorf("%s probe %s on port %s, want %s on a container port", p.name, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
	if c.ReadinessProbe != nil && c.ReadinessProbe.TimeoutSeconds <= 2 {
		t.Errorf("readiness timeout %d s: /readyz may take 2 s", c.ReadinessProbe.TimeoutSeconds)
	}

	env := map[string]corev1.EnvVar{}
	for _, v := range c.Env {
		env[v.Name] = v
	}
	if want := ":" + strconv.Itoa(int(port["http"])); env["HTTP_ADDR"].Value != want {
		t.Errorf("HTTP_ADDR %q, want %q (the container port)", env["HTTP_ADDR"].Value, want)
	}

	// Requests and limits, and GOMEMLIMIT from the memory limit.
	for _, list := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		if list.Cpu().IsZero() || list.Memory().IsZero() {
			t.Errorf("resources %+v: want CPU and memory requests and limits", c.Resources)
		}
	}
	limit := c.Resources.Limits.Memory()
	if want := resource.MustParse(e.memoryLimit); limit.Cmp(want) != 0 {
		t.Errorf("memory limit %s, want %s", limit, e.memoryLimit)
	}
	if want := strconv.FormatInt(limit.Value()*e.memPercent/100, 10); env["GOMEMLIMIT"].Value != want {
		t.Errorf("GOMEMLIMIT %q, want %s (%d %% of %s)", env["GOMEMLIMIT"].Value, want, e.memPercent, limit)
	}

	// Credentials from the Secret.
	checkSecretEnv(t, "server", c.Env, e.secretName)
	secrets := 0
	for _, o := range m.objects {
		if s, ok := o.(*corev1.Secret); ok {
			secrets++
			if s.Name != e.secretName || s.StringData["DATABASE_URL"] == "" {
				t.Errorf("Secret %s with keys of %v, want %s with DATABASE_URL", s.Name, s.StringData, e.secretName)
			}
		}
	}
	if want := map[bool]int{true: 1, false: 0}[e.secretMade]; secrets != want {
		t.Errorf("%d Secrets rendered, want %d", secrets, want)
	}

	// The pod's identity on its spans.
	if env["OTEL_SERVICE_NAME"].Value == "" {
		t.Error("no OTEL_SERVICE_NAME")
	}
	attrs := map[string]string{}
	for _, kv := range strings.Split(env["OTEL_RESOURCE_ATTRIBUTES"].Value, ",") {
		k, v, _ := strings.Cut(kv, "=")
		attrs[k] = v
	}
	for attr, field := range map[string]string{"k8s.pod.name": "metadata.name", "k8s.namespace.name": "metadata.namespace", "k8s.node.name": "spec.nodeName"} {
		if got := fieldOf(c.Env, attrs[attr], "OTEL_RESOURCE_ATTRIBUTES"); got != field {
			t.Errorf("resource attribute %s=%q: from %q, want the downward API's %s", attr, attrs[attr], got, field)
		}
	}

	// The grace period outlasts the service's own stop.
	stop, err := time.ParseDuration(env["SHUTDOWN_TIMEOUT"].Value)
	if err != nil {
		t.Fatalf("SHUTDOWN_TIMEOUT %q: %v", env["SHUTDOWN_TIMEOUT"].Value, err)
	}
	if g := spec.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= stop {
		t.Errorf("terminationGracePeriodSeconds %s, want more than SHUTDOWN_TIMEOUT %s", show(g), stop)
	}

	// Spread over nodes.
	spread := false
	for _, tsc := range spec.TopologySpreadConstraints {
		spread = spread || tsc.TopologyKey == "kubernetes.io/hostname" && selects(t, tsc.LabelSelector, pod.Labels)
	}
	if !spread {
		t.Errorf("no spread of the pods over nodes: %+v", spec.TopologySpreadConstraints)
	}

	// The ServiceAccount mounts no token.
	sa := one[*corev1.ServiceAccount](t, m)
	if spec.ServiceAccountName != sa.Name || sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Errorf("pods run as %q; ServiceAccount %s automount %s: want the chart's account, without a token", spec.ServiceAccountName, sa.Name, show(sa.AutomountServiceAccountToken))
	}

	// The migration: a hook Job before install and upgrade, with the server's image, secret and hardening.
	job := one[*batchv1.Job](t, m)
	if h := job.Annotations["helm.sh/hook"]; h != "pre-install,pre-upgrade" {
		t.Errorf("migration Job hook %q", h)
	}
	jspec := job.Spec.Template.Spec
	if len(jspec.Containers) != 1 {
		t.Fatalf("migration Job: %d containers", len(jspec.Containers))
	}
	jc := jspec.Containers[0]
	if !slices.Equal(jc.Args, []string{"migrate", "up"}) || jc.Image != c.Image || jspec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("migration Job runs %s %v (restart %s); want %s migrate up, never restarted in place", jc.Image, jc.Args, jspec.RestartPolicy, c.Image)
	}
	checkSecurity(t, "migration", jspec, jc)
	checkSecretEnv(t, "migration", jc.Env, e.secretName)
	if selects(t, d.Spec.Selector, job.Spec.Template.Labels) {
		t.Error("the Deployment's selector also selects the migration's pods")
	}
	if e.secretMade {
		s := one[*corev1.Secret](t, m)
		if s.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" || atoi(s.Annotations["helm.sh/hook-weight"]) >= atoi(job.Annotations["helm.sh/hook-weight"]) {
			t.Errorf("the chart's Secret (annotations %v) must be a hook made before the migration Job (%v)", s.Annotations, job.Annotations)
		}
	}

	svc := named[*corev1.Service](t, m, d.Name) // the API's (the console has its own)
	if !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, pod.Labels) ||
		selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, job.Spec.Template.Labels) {
		t.Errorf("the Service selects %v: want the server's pods only", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || port[svc.Spec.Ports[0].TargetPort.String()] == 0 {
		t.Errorf("Service ports %+v: want one, to the container's port", svc.Spec.Ports)
	}

	pdb := one[*policyv1.PodDisruptionBudget](t, m)
	if !selects(t, pdb.Spec.Selector, pod.Labels) || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() < 1 {
		t.Errorf("PodDisruptionBudget %+v: want the server's pods, at least one evictable at a time", pdb.Spec)
	}

	// `helm test`: a hook Pod that probes /readyz through the Service by its cluster name, with the
	// server's image and hardening, selected by neither the Service nor the Deployment.
	probe := one[*corev1.Pod](t, m)
	if probe.Annotations["helm.sh/hook"] != "test" || len(probe.Spec.Containers) != 1 {
		t.Fatalf("test Pod %s: annotations %v, %d containers; want a helm test hook with one container", probe.Name, probe.Annotations, len(probe.Spec.Containers))
	}
	pc := probe.Spec.Containers[0]
	wantURL := fmt.Sprintf("http://%s.%s.svc:%d/readyz", svc.Name, "default", svc.Spec.Ports[0].Port)
	if !slices.Equal(pc.Args, []string{"probe", wantURL}) || pc.Image != c.Image || probe.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("test Pod runs %s %v (restart %s); want %s probe %s, never restarted", pc.Image, pc.Args, probe.Spec.RestartPolicy, c.Image, wantURL)
	}
	checkSecurity(t, "test", probe.Spec, pc)
	if selects(t, d.Spec.Selector, probe.Labels) || selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, probe.Labels) {
		t.Error("the Deployment or the Service selects the test Pod")
	}
}

func checkSecurity(t *testing.T, what string, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s: the pod mounts a service-account token", what)
	}
	psc, csc := spec.SecurityContext, c.SecurityContext
	if psc == nil || csc == nil {
		t.Fatalf("%s: no security context", what)
	}
	seccomp := csc.SeccompProfile
	if seccomp == nil {
		seccomp = psc.SeccompProfile
	}
	switch {
	case csc.RunAsNonRoot == nil || !*csc.RunAsNonRoot, csc.RunAsUser == nil || *csc.RunAsUser != uid,
		psc.RunAsUser == nil || *psc.RunAsUser != uid:
		t.Errorf("%s: not running as non-root UID %d: %+v %+v", what, uid, psc, csc)
	case csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem:
		t.Errorf("%s: the root file system is writable", what)
	case csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation:
		t.Errorf("%s: privilege escalation allowed", what)
	case csc.Capabilities == nil || !slices.Equal(csc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(csc.Capabilities.Add) > 0:
		t.Errorf("%s: capabilities %+v, want all dropped", what, csc.Capabilities)
	case seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s: seccomp %+v, want RuntimeDefault", what, seccomp)
	}
}

func checkSecretEnv(t *testing.T, what string, env []corev1.EnvVar, secret string) {
	t.Helper()
	for _, key := range []string{"DATABASE_URL", "AUTH_SIGNING_KEY"} {
		found := false
		for _, v := range env {
			if v.Name == key {
				ref := v.ValueFrom
				found = ref != nil && ref.SecretKeyRef != nil && ref.SecretKeyRef.Name == secret && ref.SecretKeyRef.Key == key
			}
		}
		if !found {
			t.Errorf("%s: %s does not come from key %s of Secret %s", what, key, key, secret)
		}
	}
}

// fieldOf returns the downward-API field behind a "$(VAR)" reference, VAR
// being defined before the variable named user (Kubernetes expands only those).
func fieldOf(env []corev1.EnvVar, ref, user string) string {
	name, ok := strings.CutPrefix(ref, "$(")
	name, ok2 := strings.CutSuffix(name, ")")
	if !ok || !ok2 {
		return ""
	}
	for _, v := range env {
		if v.Name == user {
			return ""
		}
		if v.Name == name && v.ValueFrom != nil && v.ValueFrom.FieldRef != nil {
			return v.ValueFrom.FieldRef.FieldPath
		}
	}
	return ""
}
