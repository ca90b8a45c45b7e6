{{/* Names, labels and the settings shared by the server and the migration Job. */}}

{{- define "fulfillment.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name: the release name, prefixed with the chart's unless it contains it. */}}
{{- define "fulfillment.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "fulfillment.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "fulfillment.selectorLabels" . }}
app.kubernetes.io/version: {{ include "fulfillment.tag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Every pod of the release (server and migration) carries these. */}}
{{- define "fulfillment.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fulfillment.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The server's pods: what the Deployment, Service, PDB and ServiceMonitor select. */}}
{{- define "fulfillment.serverSelectorLabels" -}}
{{ include "fulfillment.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "fulfillment.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "fulfillment.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "fulfillment.secretName" -}}
{{- default (include "fulfillment.fullname" .) .Values.secret.name -}}
{{- end -}}

{{- define "fulfillment.tag" -}}
{{- default .Chart.AppVersion .Values.image.tag -}}
{{- end -}}

{{- define "fulfillment.image" -}}
{{- printf "%s:%s" .Values.image.repository (include "fulfillment.tag" .) -}}
{{- end -}}

{{/* SHUTDOWN_TIMEOUT in seconds (the schema allows whole seconds only). */}}
{{- define "fulfillment.shutdownSeconds" -}}
{{- trimSuffix "s" .Values.config.shutdownTimeout | atoi -}}
{{- end -}}

{{/*
GOMEMLIMIT in bytes: goMemLimitPercent of the memory limit. The schema allows plain bytes or the
suffixes k, M, G, T, Ki, Mi, Gi, Ti.
*/}}
{{- define "fulfillment.goMemLimit" -}}
{{- $limit := toString .Values.resources.limits.memory -}}
{{- $number := regexFind "^[0-9]+" $limit | int64 -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $unit := get $units (regexReplaceAll "^[0-9]+" $limit "") | int64 -}}
{{- div (mul $number $unit .Values.goMemLimitPercent) 100 -}}
{{- end -}}

{{/* The security context of every container: non-root 65532, read-only root, nothing more. */}}
{{- define "fulfillment.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "fulfillment.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The service's settings, shared by the server and the migration Job. */}}
{{- define "fulfillment.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "fulfillment.secretName" . }}
      key: DATABASE_URL
- name: AUTH_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "fulfillment.secretName" . }}
      key: AUTH_SIGNING_KEY
      optional: true
- name: ENVIRONMENT
  value: {{ .Values.config.environment | quote }}
- name: LOG_LEVEL
  value: {{ .Values.config.logLevel | quote }}
- name: HTTP_ADDR
  value: {{ printf ":%d" (int .Values.containerPort) | quote }}
- name: REQUEST_TIMEOUT
  value: {{ .Values.config.requestTimeout | quote }}
- name: EXPORT_TIMEOUT
  value: {{ .Values.config.exportTimeout | quote }}
{{- with .Values.config.dbMaxConns }}
- name: DB_MAX_CONNS
  value: {{ . | quote }}
{{- end }}
- name: SHUTDOWN_TIMEOUT
  value: {{ .Values.config.shutdownTimeout | quote }}
- name: SHUTDOWN_DELAY
  value: {{ .Values.config.shutdownDelay | quote }}
- name: FAILED_ORDER_RETENTION
  value: {{ .Values.config.failedOrderRetention | quote }}
- name: BILLING_TIMEZONE
  value: {{ .Values.billing.timezone | quote }}
- name: BILLING_GRACE
  value: {{ .Values.billing.grace | quote }}
- name: BILLING_TERMS
  value: {{ .Values.billing.terms | quote }}
- name: BILLING_COLLECTIONS_AFTER
  value: {{ .Values.billing.collectionsAfter | quote }}
- name: BILLING_INTERVAL
  value: {{ .Values.billing.interval | quote }}
{{- with .Values.auth.jwksURL }}
- name: AUTH_JWKS_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.auth.issuer }}
- name: AUTH_ISSUER
  value: {{ . | quote }}
{{- end }}
{{- with .Values.auth.audience }}
- name: AUTH_AUDIENCE
  value: {{ . | quote }}
{{- end }}
- name: AUTH_ORG_CLAIM
  value: {{ .Values.auth.orgClaim | quote }}
- name: AUTH_WAREHOUSE_CLAIM
  value: {{ .Values.auth.warehouseClaim | quote }}
{{- end -}}

{{/* OpenTelemetry settings, with the pod's identity as resource attributes (downward API). */}}
{{- define "fulfillment.otelEnv" -}}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: K8S_POD_UID
  valueFrom:
    fieldRef:
      fieldPath: metadata.uid
- name: K8S_NAMESPACE_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: K8S_NODE_NAME
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: OTEL_SERVICE_NAME
  value: {{ .Values.otel.serviceName | quote }}
{{- $attrs := list "k8s.pod.name=$(K8S_POD_NAME)" "k8s.pod.uid=$(K8S_POD_UID)" "k8s.namespace.name=$(K8S_NAMESPACE_NAME)" "k8s.node.name=$(K8S_NODE_NAME)" }}
{{- $attrs = append $attrs (printf "k8s.deployment.name=%s" (include "fulfillment.fullname" .)) }}
{{- $attrs = append $attrs "k8s.container.name=fulfillment" }}
{{- range $k, $v := .Values.otel.resourceAttributes }}
{{- $attrs = append $attrs (printf "%s=%s" $k (toString $v)) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attrs | quote }}
- name: OTEL_TRACES_EXPORTER
  value: {{ .Values.otel.tracesExporter | default (ternary "otlp" "none" (ne .Values.otel.exporterOtlpEndpoint "")) | quote }}
{{- with .Values.otel.exporterOtlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.otel.tracesSampler }}
- name: OTEL_TRACES_SAMPLER
  value: {{ . | quote }}
{{- end }}
{{- with .Values.otel.tracesSamplerArg }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* Refuse settings the service would refuse at start, while helm can still say so. */}}
{{- define "fulfillment.validate" -}}
{{- if .Values.secret.create -}}
{{- if not .Values.secret.databaseURL -}}
{{- fail "secret.create is true: set secret.databaseURL (or make the Secret outside Helm and set secret.create=false)" -}}
{{- end -}}
{{- if and (not .Values.secret.authSigningKey) (not .Values.auth.jwksURL) -}}
{{- fail "set secret.authSigningKey or auth.jwksURL: the service verifies tokens with one of them" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.ingress.host) -}}
{{- fail "ingress.enabled is true: set ingress.host" -}}
{{- end -}}
{{- if .Values.console.enabled -}}
{{- if eq .Values.config.environment "production" -}}
{{- $_ := required "console.enabled in production: set console.oidc.issuer (the console refuses to start in production without an OpenID Connect issuer; sign-in links are for sandbox only)" .Values.console.oidc.issuer -}}
{{- end -}}
{{- if and .Values.console.oidc.issuer (not .Values.console.oidc.clientId) -}}
{{- fail "console.oidc.issuer is set: set console.oidc.clientId (the console's client at the provider)" -}}
{{- end -}}
{{- if eq (int .Values.console.containerPort) (int .Values.containerPort) -}}
{{- fail "console.containerPort must differ from containerPort: the console has a listener of its own" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret that holds the events broker's credentials: events.credentialsSecret, else the service's. */}}
{{- define "fulfillment.eventsSecretName" -}}
{{- default (include "fulfillment.secretName" .) .Values.events.credentialsSecret -}}
{{- end -}}

{{/* Events for the platform (docs/events.md), when events.natsUrl is set: the broker, the stream, and the
credentials from a Secret — each key optional: EVENTS_NATS_USER and EVENTS_NATS_PASSWORD, or
EVENTS_NATS_TOKEN, or a .creds file (events.credsKey) mounted read-only. */}}
{{- define "fulfillment.eventsEnv" -}}
{{- if .Values.events.natsUrl }}
- name: EVENTS_NATS_URL
  value: {{ .Values.events.natsUrl | quote }}
- name: EVENTS_STREAM
  value: {{ .Values.events.stream | quote }}
- name: EVENTS_STREAM_REPLICAS
  value: {{ .Values.events.streamReplicas | quote }}
- name: EVENTS_STREAM_MAX_AGE
  value: {{ .Values.events.streamMaxAge | quote }}
- name: EVENTS_DUPLICATE_WINDOW
  value: {{ .Values.events.duplicateWindow | quote }}
{{- range $key := list "EVENTS_NATS_USER" "EVENTS_NATS_PASSWORD" "EVENTS_NATS_TOKEN" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "fulfillment.eventsSecretName" $ }}
      key: {{ $key }}
      optional: true
{{- end }}
{{- if .Values.events.credsKey }}
- name: EVENTS_NATS_CREDS
  value: /var/run/secrets/nats/nats.creds
{{- end }}
{{- end }}
{{- end -}}

{{/* The rate limits and the admission queue (docs/rate-limits.md); the Redis URL from a Secret. */}}
{{- define "fulfillment.rateLimitEnv" -}}
- name: RATE_LIMIT
  value: {{ .Values.rateLimits.rate | quote }}
- name: RATE_LIMIT_BURST
  value: {{ .Values.rateLimits.burst | quote }}
- name: ADMISSION_TARGET
  value: {{ .Values.rateLimits.admissionTarget | quote }}
- name: ADMISSION_INTERVAL
  value: {{ .Values.rateLimits.admissionInterval | quote }}
{{- with .Values.rateLimits.redisUrlSecret }}
{{- if .secretName }}
- name: RATE_LIMIT_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The operator's console (docs/console.md), when console.enabled: its listener, its OpenID Connect
client, and the client's secret from a Secret made outside Helm (each pod reads it; none is a value). */}}
{{- define "fulfillment.consoleEnv" -}}
{{- if .Values.console.enabled }}
- name: CONSOLE_ADDR
  value: {{ printf ":%d" (int .Values.console.containerPort) | quote }}
{{- with include "fulfillment.consoleURL" . }}
- name: CONSOLE_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.console.oidc }}
{{- if .issuer }}
- name: CONSOLE_OIDC_ISSUER
  value: {{ .issuer | quote }}
- name: CONSOLE_OIDC_CLIENT_ID
  value: {{ .clientId | quote }}
- name: CONSOLE_OIDC_ROLES_CLAIM
  value: {{ .rolesClaim | quote }}
{{- if .clientSecret.secretName }}
- name: CONSOLE_OIDC_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .clientSecret.secretName }}
      key: {{ .clientSecret.key }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* CONSOLE_URL: console.url, else https://console.ingress.host when set, else empty (the service's
default, http://127.0.0.1:PORT). */}}
{{- define "fulfillment.consoleURL" -}}
{{- if .Values.console.url -}}
{{- trimSuffix "/" .Values.console.url -}}
{{- else if .Values.console.ingress.host -}}
{{- printf "https://%s" .Values.console.ingress.host -}}
{{- end -}}
{{- end -}}
