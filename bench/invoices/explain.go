package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

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
	fs, dsn, org := databaseFlags("explain", "database", "organization")
	runs := fs.Int("runs", 5, "EXPLAIN ANALYZE runs per query (the median is reported)")
	_ = fs.Parse(args)

	// One connection: its catalog caches are warm after the first statements,
	// as those of the service's pooled connections are. The recorder keeps
	// the statements the repository sends, with their arguments.
	db, rec := pgtest.OpenRecording(*dsn)
	db.SetMaxOpenConns(1)
	defer func() { _ = db.Close() }()
	repo := pginvoicing.Invoices(postgres.OnPool(db))
	list := invoicingapp.NewListInvoicesHandler(repo)
	get := invoicingapp.NewGetInvoiceHandler(repo)

	var n int
	if err := db.NewRaw("SELECT count(*) FROM invoices WHERE organization_id = ?", *org).Scan(ctx, &n); err != nil {
		return err
	}
	page, err := list.Handle(ctx, invoicingapp.ListInvoices{OrganizationID: *org, Page: ports.Page{Skip: 100, Take: 1}})
	if err != nil {
		return fmt.Errorf("find an invoice of %s for the detail shape: %w", *org, err)
	}
	if len(page.Items) == 0 {
		return fmt.Errorf("%s holds fewer than 101 visible invoices; run gen first", *org)
	}
	detailID := page.Items[0].ID()
	rec.Take()

	fmt.Printf("Database time per query shape, %s (%d invoices): planning + execution of each statement, "+
		"median of %d EXPLAIN ANALYZE runs on a warm connection, %s\n\n", *org, n, *runs, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| shape | rows | page: plan + run ms | items: plan + run ms | total ms | prepared, as the service runs it: total ms | plan (scans) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|")
	for _, sh := range shapes() {
		rows := 0
		if sh.detail {
			if _, err := get.Handle(ctx, invoicingapp.GetInvoice{OrganizationID: *org, ID: detailID}); err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			rows = 1
		} else {
			in, err := listQuery(*org, sh.query)
			if err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			res, err := list.Handle(ctx, in)
			if err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			rows = len(res.Items)
		}
		queries := rec.Take()
		ms := make([][2]float64, 2) // planning, execution
		var scans []string
		for i, q := range queries {
			if i > 1 {
				break
			}
			times := make([][2]float64, 0, *runs)
			for range *runs {
				var raw []byte
				// database/sql directly: bun would read a ? in the SQL as a
				// placeholder.
				if err := db.DB.QueryRowContext(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+q.SQL, q.Args...).Scan(&raw); err != nil {
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
			rec.Take() // the EXPLAIN statements themselves
			slices.SortFunc(times, func(a, b [2]float64) int { return cmp.Compare(a[0]+a[1], b[0]+b[1]) })
			ms[i] = times[len(times)/2]
		}
		preparedMS := "—"
		if !sh.query.Has("search") {
			// The statements the service prepares: those without a search term.
			total := 0.0
			for _, q := range queries {
				t, err := explainPrepared(ctx, db, q.SQL, literals(q.Args), *runs)
				if err != nil {
					return fmt.Errorf("%s: %w", sh.name, err)
				}
				total += t
			}
			preparedMS = fmt.Sprintf("%.2f", total)
		}
		rec.Take()
		fmt.Printf("| %s | %d | %.2f + %.2f | %.2f + %.2f | %.2f | %s | %s |\n", sh.name, rows, ms[0][0], ms[0][1], ms[1][0], ms[1][1],
			ms[0][0]+ms[0][1]+ms[1][0]+ms[1][1], preparedMS, strings.Join(scans, "; "))
	}
	fmt.Fprintln(os.Stderr, "explain: done")
	return nil
}

// literals writes values as SQL literals for an EXECUTE: strings quoted
// (the benchmark's own IDs and array literals: nothing to escape but
// quotes), numbers as they are.
func literals(values []any) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprint(v)
		if s, ok := v.(string); ok {
			q[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
	}
	return strings.Join(q, ", ")
}

// explainPrepared prepares sql on the tool's one connection as the service
// does, with the service's plan_cache_mode (postgres.Open), executes it
// once and returns the median planning + execution time of runs EXPLAIN
// ANALYZE EXECUTE.
func explainPrepared(ctx context.Context, db *bun.DB, sql, args string, runs int) (float64, error) {
	for _, stmt := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE bench_read AS " + sql} {
		if _, err := db.DB.ExecContext(ctx, stmt); err != nil {
			return 0, fmt.Errorf("%s: %w", strings.Fields(stmt)[0], err)
		}
	}
	defer func() { _, _ = db.DB.ExecContext(context.WithoutCancel(ctx), "DEALLOCATE bench_read") }()
	if _, err := db.DB.ExecContext(ctx, "EXECUTE bench_read("+args+")"); err != nil {
		return 0, fmt.Errorf("execute: %w", err)
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
