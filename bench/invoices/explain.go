package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/invoicesql"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/ports"
)

// recorder is a bun query hook that keeps the SQL the repository sends.
type recorder struct {
	mu      sync.Mutex
	queries []string
}

func (r *recorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, e.Query)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queries
	r.queries = nil
	return q
}

// plan is the part of EXPLAIN (FORMAT JSON) the report reads.
type plan struct {
	Plan struct {
		planNode
	} `json:"Plan"`
	PlanningTime  float64 `json:"Planning Time"`
	ExecutionTime float64 `json:"Execution Time"`
}

type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	Plans        []planNode `json:"Plans"`
}

// scans lists the scan nodes of the plan as "Node Type [index]".
func (n planNode) scans(out []string) []string {
	if strings.Contains(n.NodeType, "Scan") && (n.RelationName != "" || n.IndexName != "") {
		s := n.NodeType
		if n.IndexName != "" {
			s += " " + n.IndexName
		} else {
			s += " " + n.RelationName
		}
		out = append(out, s)
	}
	for _, c := range n.Plans {
		out = c.scans(out)
	}
	return out
}

func explain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("explain", flag.ExitOnError)
	dsn := fs.String("dsn", envOr("BENCH_DATABASE_URL", defaultDSN), "database")
	org := fs.String("org", "org_bench", "organization")
	runs := fs.Int("runs", 5, "EXPLAIN ANALYZE runs per query (the median is reported)")
	_ = fs.Parse(args)

	// One connection: its catalog caches are warm after the first statements,
	// as those of the service's pooled connections are.
	db, err := postgres.Open(postgres.Options{DSN: *dsn, MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	rec := &recorder{}
	db.AddQueryHook(rec)
	repo := postgres.NewRepositories(db).Invoices
	list := application.NewListInvoicesHandler(repo)
	get := application.NewGetInvoiceHandler(repo)

	var n int
	if err := db.NewRaw("SELECT count(*) FROM invoices WHERE organization_id = ?", *org).Scan(ctx, &n); err != nil {
		return err
	}
	page, err := list.Handle(ctx, application.ListInvoices{OrganizationID: *org, Page: ports.Page{Skip: 100, Take: 1}})
	if err != nil {
		return fmt.Errorf("find an invoice of %s for the detail shape: %w", *org, err)
	}
	if len(page.Invoices) == 0 {
		return fmt.Errorf("%s holds fewer than 101 visible invoices; run gen first", *org)
	}
	detailID := page.Invoices[0].ID()
	rec.take()

	fmt.Printf("Database time per query shape, %s (%d invoices): planning + execution of each statement, "+
		"median of %d EXPLAIN ANALYZE runs on a warm connection, %s\n\n", *org, n, *runs, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| shape | rows | page: plan + run ms | items: plan + run ms | total ms | prepared, as the service runs it: total ms | plan (scans) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|")
	for _, sh := range shapes() {
		rows := 0
		// The statements the service prepares for this shape, with their
		// arguments as literals; none for a search.
		var prepared [][2]string
		if sh.detail {
			if _, err := get.Handle(ctx, application.GetInvoice{OrganizationID: *org, ID: detailID}); err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			rows = 1
			prepared = [][2]string{{invoicesql.Detail, literals(*org, detailID)}}
		} else {
			in, err := listQuery(*org, sh.query)
			if err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			res, err := list.Handle(ctx, in)
			if err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			rows = len(res.Invoices)
			if in.Search == "" {
				values := []string{*org}
				if in.Status != "" {
					values = append(values, string(in.Status))
				}
				if in.Page.Skip > 0 {
					values = append(values, strconv.Itoa(in.Page.Skip))
				}
				args := literals(values...)
				col := map[ports.InvoiceSortKey]string{"": "created_at", ports.InvoicesByCreatedAt: "created_at",
					ports.InvoicesByUpdatedAt: "updated_at", ports.InvoicesByDueDate: "due_date"}[in.SortBy]
				ids := make([]string, len(res.Invoices))
				for i, inv := range res.Invoices {
					ids[i] = `"` + inv.ID() + `"`
				}
				prepared = [][2]string{{invoicesql.Page(col, in.Ascending, in.Status != "", in.Page.Skip > 0), args},
					{invoicesql.Items, literals("{" + strings.Join(ids, ",") + "}")}}
			}
		}
		queries := rec.take()
		ms := make([][2]float64, 2) // planning, execution
		var scans []string
		for i, sql := range queries {
			if i > 1 {
				break
			}
			times := make([][2]float64, 0, *runs)
			for range *runs {
				var raw []byte
				// database/sql directly: the recorded SQL is final, and bun
				// would read a ? in it as a placeholder.
				if err := db.DB.QueryRowContext(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql).Scan(&raw); err != nil {
					return fmt.Errorf("%s: explain: %w", sh.name, err)
				}
				var plans []plan
				if err := json.Unmarshal(raw, &plans); err != nil {
					return fmt.Errorf("%s: read plan: %w", sh.name, err)
				}
				if len(plans) != 1 {
					return fmt.Errorf("%s: %d plans", sh.name, len(plans))
				}
				times = append(times, [2]float64{plans[0].PlanningTime, plans[0].ExecutionTime})
				if len(times) == 1 {
					scans = append(scans, plans[0].Plan.scans(nil)...)
				}
			}
			rec.take() // the EXPLAIN statements themselves
			slices.SortFunc(times, func(a, b [2]float64) int { return cmp.Compare(a[0]+a[1], b[0]+b[1]) })
			ms[i] = times[len(times)/2]
		}
		preparedMS := "—"
		if len(prepared) > 0 {
			total := 0.0
			for _, p := range prepared {
				t, err := explainPrepared(ctx, db, p[0], p[1], *runs)
				if err != nil {
					return fmt.Errorf("%s: %w", sh.name, err)
				}
				total += t
			}
			preparedMS = fmt.Sprintf("%.2f", total)
		}
		rec.take()
		fmt.Printf("| %s | %d | %.2f + %.2f | %.2f + %.2f | %.2f | %s | %s |\n", sh.name, rows, ms[0][0], ms[0][1], ms[1][0], ms[1][1],
			ms[0][0]+ms[0][1]+ms[1][0]+ms[1][1], preparedMS, strings.Join(scans, "; "))
	}
	fmt.Fprintln(os.Stderr, "explain: done")
	return nil
}

// literals quotes values as SQL string literals for an EXECUTE (the
// benchmark's own IDs and numbers: nothing to escape but quotes).
func literals(values ...string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return strings.Join(q, ", ")
}

// explainPrepared prepares sql on the tool's one connection as the service
// does, executes it six times (PostgreSQL then caches its generic plan, as
// it does on the service's connections) and returns the median planning +
// execution time of runs EXPLAIN ANALYZE EXECUTE.
func explainPrepared(ctx context.Context, db *bun.DB, sql, args string, runs int) (float64, error) {
	if _, err := db.DB.ExecContext(ctx, "PREPARE bench_read AS "+sql); err != nil {
		return 0, fmt.Errorf("prepare: %w", err)
	}
	defer func() { _, _ = db.DB.ExecContext(context.WithoutCancel(ctx), "DEALLOCATE bench_read") }()
	for range 6 {
		if _, err := db.DB.ExecContext(ctx, "EXECUTE bench_read("+args+")"); err != nil {
			return 0, fmt.Errorf("execute: %w", err)
		}
	}
	times := make([]float64, 0, runs)
	for range runs {
		var raw []byte
		if err := db.DB.QueryRowContext(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE bench_read("+args+")").Scan(&raw); err != nil {
			return 0, fmt.Errorf("explain execute: %w", err)
		}
		var plans []plan
		if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
			return 0, fmt.Errorf("read plan: %w", err)
		}
		times = append(times, plans[0].PlanningTime+plans[0].ExecutionTime)
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
