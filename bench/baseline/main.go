// Command baseline is the yardstick of the read benchmark
// (docs/benchmarks/reads.md): a bare net/http + pgx v5 server of
// GET /v0/invoices and GET /v0/invoices/{id} for one organization, running
// the same SQL as the service (sql.go; pgx prepares each statement once per
// connection, planned as the service's are) and writing the same JSON, byte for byte.
// It has none of the service's layers — authentication, admission control,
// tracing, access log, metrics, the domain model, bun and database/sql — so
// the service's throughput against it measures what those cost.
//
//	go run . -dsn postgres://…/fulfillment_bench_1m -org org_bench -addr 127.0.0.1:18090
//
// Search terms are not served (400): their SQL is built for each term.
//
// It is also the yardstick of the intake benchmark (bench/intake/run.sh):
// POST /v0/storefront/orders with the service's two statements, in intake.go.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "database")
	org := flag.String("org", "org_bench", "the organization served")
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	maxConns := flag.Int("max-conns", 4*runtime.GOMAXPROCS(0), "pool size (the service's DB_MAX_CONNS default)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dsn, *org, *addr, *maxConns); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, dsn, org, addr string, maxConns int) error {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(min(max(maxConns, 1), 1000))
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan" // as the service's sessions (postgres.Open)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newHandler(pool, org), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Printf("baseline: serving %s on http://%s", org, ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// invoice and item are the JSON of the service's Invoice and Invoice item,
// fields in the same order.
type invoice struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	Name        string  `json:"name"`
	Notes       string  `json:"notes"`
	DueDate     string  `json:"dueDate"`
	Items       []item  `json:"items"`
	TotalAmount int64   `json:"totalAmount"`
	Currency    string  `json:"currency"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
	DeletedAt   *string `json:"deletedAt"`
}

type item struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Quantity    json.Number `json:"quantity"`
	UnitCost    int64       `json:"unitCost"`
	TotalCost   int64       `json:"totalCost"`
}
