package helm_test

// The operator's console (docs/console.md): off by default, and then the
// chart renders exactly what it rendered before it had a console; on, a
// second port in the pods with its own Service, Ingress and NetworkPolicy
// rule, the OpenID Connect settings as environment and the client's secret
// only from a Secret.

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// consoleValues are console settings that must change nothing while console.enabled is false.
var consoleValues = []string{
	"--set", "console.oidc.issuer=https://login.example.com/", "--set", "console.oidc.clientId=console",
	"--set", "console.oidc.clientSecret.secretName=console-oidc", "--set", "console.ingress.host=console.example.com",
	"--set", "console.containerPort=9000", "--set", "networkPolicy.enabled=true",
}

func TestConsoleOffRendersNothingNew(t *testing.T) {
	args := []string{"template", release, chartDir, "--kube-version", kubeVersion}
	base, err := helm(t, append(args, "--set", "networkPolicy.enabled=true")...)
	if err != nil {
		t.Fatal(err)
	}
	off, err := helm(t, append(args, consoleValues...)...)
	if err != nil {
		t.Fatal(err)
	}
	if off != base {
		t.Fatalf("console settings with console.enabled=false changed the rendering:\n%.2000s", off)
	}
	m := decodeAll(t, base)
	d := one[*appsv1.Deployment](t, m)
	c := d.Spec.Template.Spec.Containers[0]
	for _, p := range c.Ports {
		if p.Name != "http" {
			t.Errorf("container port %s without the console", p.Name)
		}
	}
	for name := range serverEnv(t, m) {
		if strings.HasPrefix(name, "CONSOLE_") {
			t.Errorf("default values set %s: the console is off unless console.enabled", name)
		}
	}
	if c.StartupProbe != nil {
		t.Errorf("a startup probe without the console: %+v", c.StartupProbe)
	}
	for _, o := range m.objects {
		if strings.HasSuffix(o.(metav1.Object).GetName(), "-console") {
			t.Errorf("%T %s without the console", o, o.(metav1.Object).GetName())
		}
	}
	if np := one[*networkingv1.NetworkPolicy](t, m); len(np.Spec.Ingress) != 1 {
		t.Errorf("NetworkPolicy ingress %+v: want the API's rule only", np.Spec.Ingress)
	}
}

// Every optional part on (testdata/all-on.yaml) includes the console.
func TestConsoleOn(t *testing.T) {
	m := render(t, "-f", allOn)
	d := one[*appsv1.Deployment](t, m)
	c := d.Spec.Template.Spec.Containers[0]
	port := map[string]int32{}
	for _, p := range c.Ports {
		port[p.Name] = p.ContainerPort
	}
	if port["console"] != 9091 || port["http"] == 9091 {
		t.Fatalf("container ports %v: want console on 9091 beside the API's", port)
	}

	env := serverEnv(t, m)
	for name, want := range map[string]string{
		"CONSOLE_ADDR": ":9091", "CONSOLE_URL": "https://console.example.com", "CONSOLE_OIDC_ISSUER": "https://login.example.com/realms/acme",
		"CONSOLE_OIDC_CLIENT_ID": "fulfillment-console", "CONSOLE_OIDC_ROLES_CLAIM": "fulfillment_roles",
	} {
		if env[name].Value != want {
			t.Errorf("%s = %q, want %q", name, env[name].Value, want)
		}
	}
	secret := env["CONSOLE_OIDC_CLIENT_SECRET"]
	if ref := secret.ValueFrom; secret.Value != "" || ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "console-oidc" ||
		ref.SecretKeyRef.Key != "client-secret" || (ref.SecretKeyRef.Optional != nil && *ref.SecretKeyRef.Optional) {
		t.Errorf("CONSOLE_OIDC_CLIENT_SECRET %+v: want the key client-secret of the Secret console-oidc, required", secret)
	}
	// The migration Job has no console.
	for _, e := range one[*batchv1.Job](t, m).Spec.Template.Spec.Containers[0].Env {
		if strings.HasPrefix(e.Name, "CONSOLE_") {
			t.Errorf("the migration Job gets %s", e.Name)
		}
	}
	// The chart's own Secret never holds the console's.
	for _, o := range m.objects {
		if s, ok := o.(*corev1.Secret); ok {
			for k := range s.StringData {
				if strings.HasPrefix(k, "CONSOLE_") {
					t.Errorf("the chart's Secret holds %s", k)
				}
			}
		}
	}

	// /healthz on the console's own port.
	if p := c.StartupProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "console" {
		t.Errorf("startup probe %+v: want /healthz on the console's port", p)
	}

	// Its own Service, to the console's port of the server's pods only.
	svc := named[*corev1.Service](t, m, d.Name+"-console")
	if !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, d.Spec.Template.Labels) ||
		selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, one[*batchv1.Job](t, m).Spec.Template.Labels) {
		t.Errorf("the console's Service selects %v: want the server's pods only", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "console" || svc.Spec.Ports[0].Port != 8443 ||
		svc.Annotations["example.com/owner"] != "support" {
		t.Errorf("the console's Service %+v %v: want port 8443 to the console's port", svc.Spec.Ports, svc.Annotations)
	}
	if api := named[*corev1.Service](t, m, d.Name); len(api.Spec.Ports) != 1 || api.Spec.Ports[0].TargetPort.String() != "http" {
		t.Errorf("the API's Service %+v: want the API's port only", api.Spec.Ports)
	}

	// Its own Ingress host, every path, with TLS and the class.
	ing := named[*networkingv1.Ingress](t, m, d.Name+"-console")
	if ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName != "nginx" || len(ing.Spec.TLS) != 1 ||
		ing.Spec.TLS[0].SecretName != "console-tls" || !slices.Equal(ing.Spec.TLS[0].Hosts, []string{"console.example.com"}) {
		t.Errorf("the console's Ingress class %s, TLS %+v", show(ing.Spec.IngressClassName), ing.Spec.TLS)
	}
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host != "console.example.com" || ing.Spec.Rules[0].HTTP == nil ||
		len(ing.Spec.Rules[0].HTTP.Paths) != 1 {
		t.Fatalf("the console's Ingress rules %+v: want one host", ing.Spec.Rules)
	}
	p := ing.Spec.Rules[0].HTTP.Paths[0]
	if p.Path != "/" || p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix || p.Backend.Service == nil ||
		p.Backend.Service.Name != svc.Name || p.Backend.Service.Port.Name != "console" {
		t.Errorf("the console's Ingress path %+v: want / to the console's Service", p)
	}

	// The NetworkPolicy: the console's port from the ingress controller's namespace only, and the
	// API's rule does not open it.
	np := one[*networkingv1.NetworkPolicy](t, m)
	if len(np.Spec.Ingress) != 2 {
		t.Fatalf("NetworkPolicy ingress %+v: want the API's rule and the console's", np.Spec.Ingress)
	}
	rule := np.Spec.Ingress[1]
	if len(rule.Ports) != 1 || rule.Ports[0].Port.String() != "console" || len(rule.From) != 1 || rule.From[0].NamespaceSelector == nil ||
		rule.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "ingress-nginx" {
		t.Errorf("the console's NetworkPolicy rule %+v: want its port from ingress-nginx only", rule)
	}
	for _, p := range np.Spec.Ingress[0].Ports {
		if p.Port.String() == "console" {
			t.Errorf("the API's NetworkPolicy rule opens the console's port")
		}
	}
}

// In a sandbox a console without an issuer is allowed (sign-in by a one-time link), and then the
// pods get no OpenID Connect settings; in production the chart refuses it, as the service would.
func TestConsoleIssuer(t *testing.T) {
	m := render(t, "--set", "console.enabled=true")
	env := serverEnv(t, m)
	if env["CONSOLE_ADDR"].Value != ":8081" {
		t.Errorf("CONSOLE_ADDR %q, want :8081", env["CONSOLE_ADDR"].Value)
	}
	for name := range env {
		if strings.HasPrefix(name, "CONSOLE_OIDC_") || name == "CONSOLE_URL" {
			t.Errorf("%s without an issuer or a host (the service's default URL, http://127.0.0.1:8081, suits a port-forward)", name)
		}
	}
	named[*corev1.Service](t, m, one[*appsv1.Deployment](t, m).Name+"-console")
	for _, o := range m.objects {
		if _, ok := o.(*networkingv1.Ingress); ok {
			t.Errorf("an Ingress without console.ingress.host")
		}
	}

	// console.url wins over the Ingress host, without its trailing slash.
	env = serverEnv(t, render(t, "--set", "console.enabled=true", "--set", "console.ingress.host=console.example.com",
		"--set", "console.url=https://ops.example.com:8443/"))
	if env["CONSOLE_URL"].Value != "https://ops.example.com:8443" {
		t.Errorf("CONSOLE_URL %q, want https://ops.example.com:8443", env["CONSOLE_URL"].Value)
	}

	// A public client (no secret named): no CONSOLE_OIDC_CLIENT_SECRET.
	env = serverEnv(t, render(t, "--set", "console.enabled=true", "--set", "config.environment=production",
		"--set", "console.oidc.issuer=https://login.example.com/", "--set", "console.oidc.clientId=console"))
	if _, ok := env["CONSOLE_OIDC_CLIENT_SECRET"]; ok || env["CONSOLE_OIDC_ROLES_CLAIM"].Value != "roles" {
		t.Errorf("a public client: %+v", env)
	}
}

func TestConsoleRefusals(t *testing.T) {
	on := []string{"--set", "console.enabled=true"}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"production without an issuer":   {append([]string{"--set", "config.environment=production"}, on...), "console.oidc.issuer"},
		"an issuer without a client":     {append([]string{"--set", "console.oidc.issuer=https://login.example.com/"}, on...), "console.oidc.clientId"},
		"the API's port":                 {append([]string{"--set", "console.containerPort=8080"}, on...), "console.containerPort"},
		"a client secret as a value":     {append([]string{"--set", "console.oidc.clientSecret.value=hunter2"}, on...), "value"},
		"a client secret as a string":    {append([]string{"--set", "console.oidc.clientSecret=hunter2"}, on...), "clientSecret"},
		"an issuer that is not a URL":    {append([]string{"--set", "console.oidc.issuer=login.example.com"}, on...), "issuer"},
		"a privileged port":              {append([]string{"--set", "console.containerPort=443"}, on...), "containerPort"},
		"an unknown console setting":     {append([]string{"--set", "console.host=console.example.com"}, on...), "host"},
		"a URL with a path":              {append([]string{"--set", "console.url=https://example.com/console"}, on...), "url"},
		"an empty roles claim":           {append([]string{"--set", "console.oidc.rolesClaim="}, on...), "rolesClaim"},
		"a Secret name Kubernetes lacks": {append([]string{"--set", "console.oidc.clientSecret.secretName=Console_OIDC"}, on...), "secretName"},
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
