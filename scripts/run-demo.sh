#!/usr/bin/env bash
# scripts/run-demo.sh — what `make run` does: a database, the schema, the demo data, a token and
# an API key to try the API with, then the server in the foreground (Ctrl-C stops it).
#
# Settings come from the environment like the binary's own (DATABASE_URL, HTTP_ADDR, ENVIRONMENT,
# AUTH_SIGNING_KEY, LOG_LEVEL, OTEL_*). Defaults here: a database found or started by
# scripts/pg.sh, HTTP_ADDR=:8080, ENVIRONMENT=sandbox, OTEL_TRACES_EXPORTER=none (no collector
# is needed; responses still carry X-Trace-Id), and a development signing key generated once
# into .tmp/dev-signing-key (gitignored) and reused, so tokens printed by an earlier run keep
# working until they expire. Events (docs/events.md) go to the local NATS JetStream when it
# answers at 127.0.0.1:4222 (EVENTS_NATS_URL set here unless set already; EVENTS_NATS_URL= turns
# them off); `bin/fulfillment events tail` shows them. The operator's console (docs/console.md) is
# served on CONSOLE_ADDR, 127.0.0.1:8081 unless set (CONSOLE_ADDR= turns it off), and in sandbox a
# one-time sign-in link is printed: for demo-admin with the admin role, usable once within 8 hours
# (a working day to open it; `bin/fulfillment console link` makes another).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf 'run-demo: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}
# shq VALUE: VALUE single-quoted for the shell.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

FIXTURE=scripts/demo-fixture.json
ORDER_SAMPLE=docs/samples/orders-create.json

[[ -f $FIXTURE ]] || die "$FIXTURE is missing: it holds the demo organization, warehouses, products and invoices"

pg_env=$(scripts/pg.sh)
eval "$pg_env"

log "building bin/fulfillment"
go build -o bin/fulfillment ./cmd/fulfillment

if [[ -z ${AUTH_SIGNING_KEY:-} ]]; then
	keyfile=.tmp/dev-signing-key
	if [[ ! -s $keyfile ]]; then
		mkdir -p .tmp
		(
			umask 077
			od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$keyfile.new"
		)
		mv "$keyfile.new" "$keyfile"
		log "generated a development signing key in $keyfile"
	fi
	AUTH_SIGNING_KEY=$(<"$keyfile")
fi
export AUTH_SIGNING_KEY
export HTTP_ADDR=${HTTP_ADDR:-:8080}
export ENVIRONMENT=${ENVIRONMENT:-sandbox}
export OTEL_TRACES_EXPORTER=${OTEL_TRACES_EXPORTER:-none}
export CONSOLE_ADDR=${CONSOLE_ADDR-127.0.0.1:8081}
[[ -n $CONSOLE_ADDR ]] || unset CONSOLE_ADDR
if [[ -z ${EVENTS_NATS_URL+set} ]] && (exec 9<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
	export EVENTS_NATS_URL=nats://127.0.0.1:4222
fi

bin/fulfillment migrate up
bin/fulfillment seed --file "$FIXTURE"
token=$(bin/fulfillment token mint --org org_acme --scopes locations,invoices,shipments,inventory --ttl 24h)
apikey=$(bin/fulfillment apikey create --org org_acme --scopes shipments,inventory --name demo)
[[ -n $token && $token != *[[:space:]]* ]] || die "token mint printed something other than one token: $(shq "$token")"
[[ -n $apikey && $apikey != *[[:space:]]* ]] || die "apikey create printed something other than one key: $(shq "$apikey")"
# The warehouse management system of wh_east, org_acme's default warehouse in the fixture.
wtoken=$(bin/fulfillment token mint --warehouse wh_east --scopes warehouse --ttl 24h)
[[ -n $wtoken && $wtoken != *[[:space:]]* ]] || die "token mint printed something other than one token: $(shq "$wtoken")"

# The console's one-time sign-in link (sandbox only): 8 hours to open it, once.
console_link=
if [[ -n ${CONSOLE_ADDR:-} && $ENVIRONMENT == sandbox ]]; then
	console_link=$(bin/fulfillment console link --subject demo-admin --roles admin --ttl 8h)
	[[ -n $console_link && $console_link != *[[:space:]]* ]] || die "console link printed something other than one URL: $(shq "$console_link")"
fi

# The first day of org_acme's rate card in the fixture: billing runs from that month on.
card_from=$(grep -o '"effectiveFrom": *"[0-9-]*"' "$FIXTURE" | head -n 1 | grep -o '[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]')

# The base URL a client on this machine uses to reach HTTP_ADDR.
host=${HTTP_ADDR%:*}
port=${HTTP_ADDR##*:}
case $host in
'' | 0.0.0.0 | '[::]' | '::') host=localhost ;;
esac
base="http://$host:$port"

auth=$(shq "Authorization: Bearer $token")
key=$(shq "Authorization: Bearer $apikey")
sample=$(shq "@$ROOT/$ORDER_SAMPLE")
wauth=$(shq "Authorization: Bearer $wtoken")
tracking=$(shq '{"carrier":"UPS","trackingNumber":"1Z999AA10123456784"}')

cat <<EOF

Demo data is loaded for organization org_acme ($ENVIRONMENT). Credentials (the token expires in 24h;
the API key, named "demo", has scopes shipments,inventory and is new on every run):

  access token: $token
  API key:      $apikey
  warehouse token (wh_east's management system, scope warehouse): $wtoken

Try it from another terminal (the lines are self-contained):

  curl -sS -i -H $auth $base/v0/warehouses
  curl -sS -i -H $auth $base/v0/invoices
  curl -sS -i -H $auth '$base/v0/invoices?status=unpaid&search=storage'
  curl -sS -i -H $auth $base/v0/shipments
  curl -sS -i -H $auth $base/v0/products
  curl -sS -i -H $key -H 'Content-Type: application/json' --data $sample $base/v0/storefront/orders
  curl -sS -i -H $auth $base/v0/storefront/orders/5726128734520

The warehouse's side (wh_east): its pending shipments, then ship the first of them (the storefront
order above makes one):

  curl -sS -i -H $wauth $base/v0/warehouse/shipments
  id=\$(curl -sS -H $wauth $base/v0/warehouse/shipments | grep -o '"id":"shp_[^"]*"' | head -n 1 | cut -d '"' -f 4); if [ -n "\$id" ]; then curl -sS -i -H $wauth -H 'Content-Type: application/json' --data $tracking $base/v0/warehouse/shipments/\$id/ship; else echo 'no pending shipment: send the storefront order first'; fi

The API reference (every operation, status and body): $base/docs
$(if [[ -n $console_link ]]; then
		printf '\nThe operator'"'"'s console is on %s. Open this one-time sign-in link in your browser (it works\nonce, within 8 hours; it signs you in as demo-admin, role admin):\n\n  %s\n\nAnother link: bin/fulfillment console link --subject YOUR-NAME --roles admin --ttl 8h\n' \
			"${console_link%%/signin*}" "$console_link"
	elif [[ -n ${CONSOLE_ADDR:-} ]]; then
		printf '\nThe operator'"'"'s console is on %s (sign in through CONSOLE_OIDC_ISSUER).\n' "$CONSOLE_ADDR"
	fi)

Billing: org_acme's rate card is in force from $card_from. On a new database the server's first billing
run (about a minute after it starts) finalizes one invoice per month from then up to the last month
past its grace, each only the \$50.00 monthly minimum, as nothing was shipped in them (README.md,
"Trying it"). This month's open invoice, as the API will show it:

  bin/fulfillment invoices preview --org org_acme
$(if [[ -n ${EVENTS_NATS_URL:-} ]]; then
		printf '\nEvents go to %s (stream %s); watch them as they arrive:\n\n  EVENTS_NATS_URL=%s bin/fulfillment events tail\n\nThe operator'"'"'s commands record events too, with or without it in their own shell (billing close:\ninvoice.finalized): the running server tells them through the database.\n' \
			"$EVENTS_NATS_URL" "${EVENTS_STREAM:-FULFILLMENT}" "$(shq "$EVENTS_NATS_URL")"
	else
		printf '\nEvents are off: no NATS answers at 127.0.0.1:4222 (scripts/nats.sh starts one).\n'
	fi)

Starting the server on $HTTP_ADDR${CONSOLE_ADDR:+ and the console on $CONSOLE_ADDR} (Ctrl-C stops it).

EOF
[[ -f $ORDER_SAMPLE ]] || log "note: $ORDER_SAMPLE is not in this checkout yet, so the last curl line has no body to send"

exec bin/fulfillment serve
