# Targets: run, test, lint, build, image, bench, fmt, clean (and db-stop). `make help` lists them.
# Everything that needs PostgreSQL goes through scripts/pg.sh, which finds or starts one and
# exports DATABASE_URL and TEST_DATABASE_URL.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules --no-print-directory

# Tools beyond Go (golangci-lint, helm, podman, prometheus, jaeger, redocly, chromium, axe-core) come from
# scripts/tools.sh, which installs each on first use and caches it outside the checkout.
TOOLS = scripts/tools.sh

# What `make test` needs besides Go: the tools it installs (once) before the tests run, so that a
# first-time build of a tool never counts against a test's timeout, and the Go modules whose tests
# it runs (the service's own, then any module of its own under deploy/ or bench/). The service's
# module runs in the foreground; the others run beside it (the deploy module's cluster test mostly
# waits on its processes), their output kept in .tmp/test-<module>.log and shown when each is done.
TEST_TOOLS := helm podman chromium prometheus promtool jaeger kube-apiserver coredns containerd monitoring-crds oidc-provider axe-core
TEST_MODULES := . deploy bench/baseline

# The version stamped into the binary (`fulfillment version`) and the image's tag: `git describe`,
# or "dev" outside a git checkout. Image times are the last commit's, so that building the same
# commit again gives the same image.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# A static binary (no libc in the image), without local paths or debug sections. GO_TAGS: build
# tags, e.g. schemachange (the cluster test's upgraded image, with the fixture migrations of
# migrations/schemachange/); none for a release.
GO_TAGS ?=
GO_BUILD = CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/acme3pl/fulfillment/bootstrap.Version=$(VERSION)" -tags '$(GO_TAGS)'
IMAGE_DIR ?= .tmp/image

# Go files to format and check: all of them but ignored/generated trees.
GO_FILES = find . -name '*.go' -not -path './.git/*' -not -path './.tmp/*' -not -path './bin/*' -print0

# `eval "$(scripts/pg.sh)"` would hide a failure of pg.sh (eval of an empty string succeeds).
WITH_PG = pg_env="$$(scripts/pg.sh)"; eval "$$pg_env";

# squawk (.squawk.toml) over the migrations, and the cluster test's fixture migrations
# (migrations/schemachange/): the *.tx.up.sql files run inside a transaction (the config says so),
# the others outside one. Any finding fails lint (docs/migrations.md).
SQUAWK_LINT = tx=(); plain=(); \
	for f in migrations/*.up.sql migrations/schemachange/*.up.sql; do if [[ $$f == *.tx.up.sql ]]; then tx+=("$$f"); else plain+=("$$f"); fi; done; \
	sq_status=0; \
	"$$squawk" --config .squawk.toml --reporter gcc "$${tx[@]}" || sq_status=1; \
	if (( $${\#plain[@]} )); then "$$squawk" --config .squawk.toml --reporter gcc --no-assume-in-transaction "$${plain[@]}" || sq_status=1; fi; \
	(( sq_status == 0 )) && echo "squawk: no finding in $$(( $${\#tx[@]} + $${\#plain[@]} )) migrations"

.PHONY: help run test lint build image bench fmt clean db-stop jaeger

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  \1\t/' | expand -t 14

run: ## database + migrations + demo data + credentials, then the server on $HTTP_ADDR (:8080)
	@scripts/run-demo.sh

build: ## bin/fulfillment, static, with its version stamped
	$(GO_BUILD) -o bin/fulfillment ./cmd/fulfillment

image: ## the OCI image built offline (no daemon, no registry) into .tmp/image/fulfillment.tar; prints its tag
	@mkdir -p $(IMAGE_DIR)
	@$(GO_BUILD) -o $(IMAGE_DIR)/fulfillment ./cmd/fulfillment
	@image_dir=$$(cd $(IMAGE_DIR) && pwd); cd deploy && go run ./cmd/image -binary "$$image_dir/fulfillment" \
		-version '$(VERSION)' -revision '$(REVISION)' -created '$(SOURCE_DATE_EPOCH)' -out "$$image_dir/fulfillment.tar"

test: ## go test -race on every package against a real PostgreSQL (and nats-server, scripts/nats.sh; redis-server, scripts/redis.sh); log in .tmp/test.log
	@$(WITH_PG) \
	echo "make test: TEST_DATABASE_URL=$${TEST_DATABASE_URL%%\?*}" | sed -E 's#(://[^:@/]*):[^@/]*@#\1:***@#; s/(password[[:space:]]*=[[:space:]]*)[^[:space:]]+/\1***/' >&2; \
	mkdir -p .tmp; \
	status=0; \
	for tool in $(TEST_TOOLS); do $(TOOLS) "$$tool" >/dev/null || status=$$?; done; \
	scripts/nats.sh >/dev/null || status=$$?; \
	scripts/redis.sh >/dev/null || status=$$?; \
	: > .tmp/test.log; \
	if [[ $$status == 0 ]]; then \
		bg=(); logs=(); \
		for mod in $(wordlist 2,$(words $(TEST_MODULES)),$(TEST_MODULES)); do \
			log=".tmp/test-$${mod//\//-}.log"; logs+=("$$log"); \
			(cd "$$mod" && go test -race -count=1 -timeout 20m ./...) > "$$log" 2>&1 & bg+=($$!); \
		done; \
		(go test -race -count=1 -timeout 20m ./...) 2>&1 | tee -a .tmp/test.log || status=$$?; \
		for i in "$${!bg[@]}"; do \
			wait "$${bg[$$i]}" || status=$$?; \
			tee -a .tmp/test.log < "$${logs[$$i]}"; \
		done; \
	fi; \
	awk ' \
		/^ok[ \t]/               { ok++; failing = "" } \
		/^\?[ \t]/               { none++ } \
		/^--- FAIL: /            { failing = failing " " $$3 } \
		/^WARNING: DATA RACE/    { races++ } \
		/^FAIL[ \t]/             { nf++; note = match($$0, /\[[a-z]+ failed\]/) ? " " substr($$0, RSTART, RLENGTH) : ""; \
		                           fp[nf] = $$2 note (failing == "" ? "" : ":" failing); failing = "" } \
		END { \
			printf "\n== make test: %d package(s) passed, %d failed, %d without tests", ok, nf, none; \
			if (races) printf ", %d data race report(s)", races; \
			printf " (log: .tmp/test.log)\n"; \
			for (i = 1; i <= nf; i++) printf "   FAIL %s\n", fp[i]; \
		}' .tmp/test.log; \
	if [[ $$status != 0 ]]; then echo "== make test: FAILED (go test exit status $$status)"; else echo "== make test: ok"; fi; \
	exit $$status

# The benchmarks `make bench` runs, all by default: go (the Benchmark functions), invoices
# (bench/invoices/run.sh: list and search at 10k and 1M, database time of every query shape),
# reads (bench/reads/run.sh: the list and detail against a bare pgx baseline), intake
# (bench/intake/run.sh: the order intake against pgbench), tracing (bench/intake/tracing.sh: the
# intake with no export, 10 % and every trace sampled to Jaeger), replay (bench/replay/run.sh:
# `fulfillment orders replay --all-failed` over 10,000 kept orders against the intake's rate), ship
# (bench/ship/run.sh: the warehouse's loop beside the intake: ships against pgbench, open loop at half),
# events (bench/events/run.sh: the intake with events on against off, the relay's lag and throughput;
# NATS_SERVERS=3 for a three-server JetStream cluster with stream replicas 3), ratelimit
# (bench/ratelimit/run.sh: a list's CPU with the rate limits in Redis against in memory, Redis's per check),
# console (bench/console/run.sh: every page of the operator's console at 1M invoices and 1M shipments,
# p99 ≤ 100 ms; its scale database is kept between runs).
# E.g. `make bench BENCH=reads`.
BENCH ?= go invoices reads intake tracing replay ship billing charges events ratelimit console

bench: ## the benchmarks of docs/benchmarks.md (BENCH="go invoices reads intake tracing replay ship billing charges events ratelimit console"); the first run generates 1M invoices (and console its scale database)
	@$(WITH_PG) \
	for b in $(BENCH); do \
		case $$b in \
		go) go test -run '^$$' -bench . -benchmem ./... ;; \
		invoices|reads|intake|replay|ship|events|ratelimit|console) bench/$$b/run.sh ;; \
		tracing) bench/intake/tracing.sh ;; \
		billing) go run ./bench/billing -admin "$$DATABASE_URL" ;; \
		charges) go run ./bench/charges -admin "$$DATABASE_URL" ;; \
		*) echo "make bench: unknown benchmark $$b (go, invoices, reads, intake, tracing, replay, ship, billing, charges, events, ratelimit, console)" >&2; exit 2 ;; \
		esac; \
	done

lint: ## gofmt -s, go vet and golangci-lint (.golangci.yml) in every module of TEST_MODULES, Redocly on api/openapi.yaml, squawk on migrations/*.up.sql (and the fixtures of migrations/schemachange/), no migration setting its own timeouts; fails if any fails
	@golangci_lint=$$($(TOOLS) golangci-lint); \
	redocly=$$($(TOOLS) redocly); \
	squawk=$$($(TOOLS) squawk); \
	status=0; \
	unformatted=$$($(GO_FILES) | xargs -0 -r gofmt -s -l); \
	if [[ -n $$unformatted ]]; then echo "gofmt -s: these files need formatting (run make fmt):"; echo "$$unformatted" | sed 's/^/  /'; status=1; fi; \
	for mod in $(TEST_MODULES); do \
		(cd "$$mod" && go vet ./...) || status=1; \
		(cd "$$mod" && "$$golangci_lint" run ./...) || status=1; \
	done; \
	go vet -tags schemachange ./migrations/ && "$$golangci_lint" run --build-tags schemachange ./migrations/ || status=1; \
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "$$redocly" lint api/openapi.yaml || status=1; \
	$(SQUAWK_LINT) || status=1; \
	go test -count=1 -run '^TestMigrationsSetNoTimeouts$$' ./migrations/ || status=1; \
	exit $$status

fmt: ## gofmt -s -w every Go file
	@$(GO_FILES) | xargs -0 -r gofmt -s -w

clean: ## remove build output and test logs (keeps the database in .tmp/pg and .tmp/dev-signing-key)
	rm -rf bin .tmp/test.log .tmp/image

db-stop: ## stop the private PostgreSQL cluster scripts/pg.sh may have started
	@scripts/pg.sh stop

jaeger: ## Jaeger v2 in memory on 127.0.0.1 (OTLP :4318, query API :16686) for `make run` traces; see docs/observability.md
	@scripts/jaeger.sh
