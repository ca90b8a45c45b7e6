#!/usr/bin/env bash
# scripts/jaeger.sh — run Jaeger v2 in the foreground to see the service's traces locally (`make jaeger`).
#
#   OTLP/HTTP receiver  $JAEGER_OTLP_ADDR   (default 127.0.0.1:4318): run the service with
#                       OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_TRACES_EXPORTER=otlp
#   query API           $JAEGER_QUERY_ADDR  (default 127.0.0.1:16686): a trace by the X-Trace-Id of a response:
#                       curl -s http://127.0.0.1:16686/api/v3/traces/<X-Trace-Id>
#   query gRPC API      $JAEGER_QUERY_GRPC_ADDR (default 127.0.0.1:16685)
#
# Storage is in memory: traces go when it stops. The binary is scripts/tools.sh's (built once from Jaeger's Go
# module, which carries no web UI assets: read traces through the API, or point a Grafana Jaeger data source
# at the query address). Configuration: scripts/jaeger.yaml.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$("$ROOT/scripts/tools.sh" jaeger)
exec "$bin" --config "$ROOT/scripts/jaeger.yaml"
