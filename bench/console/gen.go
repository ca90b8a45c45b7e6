package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/bench/internal/benchdb"
)

// defaultDSN is the scale database; gen creates it.
const defaultDSN = "postgres://postgres@127.0.0.1:5432/fulfillment_bench_console?sslmode=disable"

// The scale database (docs/benchmarks/console.md): one big organization
// holding most of everything, so that its pages are the worst case, and
// three smaller ones beside it. Every ID is derived from its organization's
// tag and a sequence number, so that the load generator can name a
// shipment or an invoice without asking the database.
type organization struct {
	id, tag, name       string
	invoices, shipments int // rows of each
	products            int
	failed              int  // failed order receipts with their kept bodies
	billed              bool // a rate card, eleven finalized months and the open one
}

// bigOrg is the organization whose pages the benchmark reads.
const bigOrg = "org_big"

func organizations(big, others int) []organization {
	return []organization{
		{id: bigOrg, tag: "big", name: "Northwind Apparel", invoices: big, shipments: big, products: 300, failed: 3000, billed: true},
		{id: "org_acme", tag: "acme", name: "Acme Outdoor", invoices: others, shipments: others, products: 50, failed: 300},
		{id: "org_globex", tag: "globex", name: "Globex Home", invoices: others, shipments: others, products: 50, failed: 300},
		{id: "org_initech", tag: "initech", name: "Initech Supplies", invoices: others, shipments: others, products: 50, failed: 300},
	}
}

var warehouses = []string{"wh_east", "wh_west", "wh_dallas", "wh_midwest"}

func gen(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	def := defaultDSN
	if v := os.Getenv("BENCH_DATABASE_URL"); v != "" {
		def = v
	}
	dsn := fs.String("dsn", def, "database to fill (created and migrated when missing; kept: a step whose rows exist is skipped)")
	big := fs.Int("big", 900_000, "invoices and shipments of the biggest organization ("+bigOrg+")")
	others := fs.Int("others", 34_000, "invoices and shipments of each of the three others")
	audits := fs.Int("audit", 50_000, "audit records")
	body := fs.String("body", "docs/samples/orders-create.json", "the storefront order kept as each failed receipt's body")
	_ = fs.Parse(args)
	payload, err := os.ReadFile(*body)
	if err != nil {
		return err
	}
	if err := benchdb.CreateDatabase(ctx, *dsn); err != nil {
		return err
	}
	// Generation runs one statement at a time (the machine is shared), and
	// index builds one parallel worker at most; the migrator holds its lock
	// on a second connection.
	db, err := postgres.Open(postgres.Options{DSN: benchdb.WithParam(*dsn, "read_timeout", "2h"), MaxOpenConns: 2})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if err := benchdb.Migrate(ctx, db); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	orgs := organizations(*big, *others)
	g := &generator{db: db.DB, start: time.Now()}
	last := orgs[len(orgs)-1]
	if err := g.step(ctx, "organizations, warehouses, products", `SELECT EXISTS (SELECT 1 FROM products WHERE id = $1)`,
		[]any{fmt.Sprintf("prod_%s_%d", last.tag, last.products)}, false, func(tx *sql.Tx) error {
			if err := execAll(ctx, tx, []string{insertWarehousesSQL}); err != nil {
				return err
			}
			for _, o := range orgs {
				if err := execAll(ctx, tx, []string{insertOrganizationSQL}, o.id, o.name); err != nil {
					return err
				}
				if err := execAll(ctx, tx, []string{insertWarehouseOrganizationsSQL}, o.id, pgArray(warehouses)); err != nil {
					return err
				}
				if err := execAll(ctx, tx, []string{setDefaultWarehouseSQL}, o.id); err != nil {
					return err
				}
				if err := execAll(ctx, tx, []string{insertProductsSQL}, o.id, o.tag, o.products); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
		return err
	}
	// The indexes of a table are built once, after all of its rows (one
	// step for every organization).
	lastOrg := orgs[len(orgs)-1]
	if err := g.step(ctx, "invoices of every organization", `SELECT EXISTS (SELECT 1 FROM invoices WHERE id = $1)`,
		[]any{fmt.Sprintf("inv_%s_%07d", lastOrg.tag, lastOrg.invoices)}, true, func(tx *sql.Tx) error {
			return withoutIndexes(ctx, tx, []string{"invoices", "invoice_items"}, func() error {
				for _, o := range orgs {
					if err := g.timed(fmt.Sprintf("  %d invoices of %s", o.invoices, o.id), func() error {
						return execAll(ctx, tx, []string{insertInvoiceItemsSQL, insertInvoicesSQL}, o.id, o.tag, o.invoices)
					}); err != nil {
						return err
					}
				}
				return nil
			})
		}); err != nil {
		return err
	}
	if err := g.step(ctx, "shipments of every organization, their lines and stock movements", `SELECT EXISTS (SELECT 1 FROM shipments WHERE id = $1)`,
		[]any{fmt.Sprintf("shp_%s_%07d", lastOrg.tag, lastOrg.shipments)}, true, func(tx *sql.Tx) error {
			return withoutIndexes(ctx, tx, []string{"shipments", "shipment_items", "stock_movements"}, func() error {
				for _, o := range orgs {
					if err := g.timed(fmt.Sprintf("  %d shipments of %s", o.shipments, o.id), func() error {
						if err := execAll(ctx, tx, []string{insertShipmentsSQL}, o.id, o.tag, o.shipments); err != nil {
							return err
						}
						if err := execAll(ctx, tx, []string{insertShipmentItemsSQL}, o.id, o.tag, o.shipments, o.products); err != nil {
							return err
						}
						return execAll(ctx, tx, []string{insertShipmentMovementsSQL}, o.id)
					}); err != nil {
						return err
					}
				}
				return nil
			})
		}); err != nil {
		return err
	}
	for _, o := range orgs {
		if err := g.step(ctx, "stock of "+o.id, `SELECT EXISTS (SELECT 1 FROM product_stock WHERE organization_id = $1)`,
			[]any{o.id}, true, func(tx *sql.Tx) error {
				return execAll(ctx, tx, []string{insertOpeningMovementsSQL, insertProductStockSQL}, o.id)
			}); err != nil {
			return err
		}
	}
	for _, o := range orgs {
		if !o.billed {
			continue
		}
		// Not in replica mode: the statement triggers of billing_charges
		// keep billing_charge_days, as every path of the service does.
		if err := g.step(ctx, "billing of "+o.id, `SELECT EXISTS (SELECT 1 FROM billing_periods WHERE organization_id = $1)`,
			[]any{o.id}, false, func(tx *sql.Tx) error {
				return withoutIndexes(ctx, tx, []string{"billing_charges"}, func() error {
					return execAll(ctx, tx, []string{insertRateCardSQL, insertPeriodsSQL, insertChargesSQL,
						// The lines before their invoices, whose totals the
						// deferred check compares with them: the foreign key
						// off from here on.
						"SET LOCAL session_replication_role = replica", insertBilledItemsSQL, insertBilledInvoicesSQL, insertKeyCountersSQL, insertCatchUpSQL, insertStorageWatermarkSQL}, o.id)
				})
			}); err != nil {
			return err
		}
	}
	for _, o := range orgs {
		if err := g.step(ctx, fmt.Sprintf("%d failed order receipts of %s", o.failed, o.id),
			`SELECT EXISTS (SELECT 1 FROM order_receipts WHERE organization_id = $1)`, []any{o.id}, true, func(tx *sql.Tx) error {
				if err := execAll(ctx, tx, []string{insertFailedReceiptsSQL}, o.id, o.failed, string(payload)); err != nil {
					return err
				}
				return execAll(ctx, tx, []string{insertSucceededReceiptsSQL}, o.id)
			}); err != nil {
			return err
		}
	}
	if err := g.step(ctx, fmt.Sprintf("%d audit records, API keys, the outbox's backlog", *audits),
		`SELECT EXISTS (SELECT 1 FROM audit_records WHERE id LIKE 'aud_bench_%')`, nil, true, func(tx *sql.Tx) error {
			var ids []string
			for _, o := range orgs {
				ids = append(ids, o.id)
			}
			if err := execAll(ctx, tx, []string{insertAuditSQL}, *audits, pgArray(ids)); err != nil {
				return err
			}
			for _, o := range orgs {
				if err := execAll(ctx, tx, []string{insertAPIKeysSQL}, o.id, o.tag); err != nil {
					return err
				}
			}
			return execAll(ctx, tx, []string{insertOutboxSQL, setLimitSQL})
		}); err != nil {
		return err
	}
	if !g.changed {
		fmt.Fprintln(os.Stderr, "gen: the scale database is complete; nothing to do")
		return nil
	}
	t := time.Now()
	// VACUUM sets the visibility map (index-only scans) and ANALYZE the
	// statistics the planner chooses with.
	if _, err := db.DB.ExecContext(ctx, "VACUUM (ANALYZE)"); err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	fmt.Fprintf(os.Stderr, "gen: vacuum analyze in %s; done in %s\n", time.Since(t).Round(time.Second), time.Since(g.start).Round(time.Second))
	return nil
}

type generator struct {
	db      *sql.DB
	start   time.Time
	changed bool
}

// step runs fn in a transaction of its own unless the query done (with
// args) answers true: a step is all or nothing, so a stopped run resumes at
// the step it was in. In replica mode (bulk steps whose rows are consistent
// by construction) the triggers are off: the foreign keys and the invoices'
// deferred total check, which would cost a lookup per row.
func (g *generator) step(ctx context.Context, name, done string, args []any, replica bool, fn func(*sql.Tx) error) error {
	var skip bool
	if err := g.db.QueryRowContext(ctx, done, args...).Scan(&skip); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if skip {
		fmt.Fprintf(os.Stderr, "gen: %s: present\n", name)
		return nil
	}
	t := time.Now()
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	settings := []string{"SET LOCAL maintenance_work_mem = '512MB'", "SET LOCAL work_mem = '128MB'",
		"SET LOCAL max_parallel_maintenance_workers = 1", "SET LOCAL max_parallel_workers_per_gather = 1", "SET LOCAL synchronous_commit = off"}
	if replica {
		settings = append(settings, "SET LOCAL session_replication_role = replica")
	}
	if err := execAll(ctx, tx, settings); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	g.changed = true
	fmt.Fprintf(os.Stderr, "gen: %s in %s\n", name, time.Since(t).Round(100*time.Millisecond))
	return nil
}

// timed runs fn and says how long it took.
func (g *generator) timed(name string, fn func() error) error {
	t := time.Now()
	if err := fn(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %s in %s\n", name, time.Since(t).Round(100*time.Millisecond))
	return nil
}

func execAll(ctx context.Context, tx *sql.Tx, stmts []string, args ...any) error {
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s, args[:placeholders(s)]...); err != nil {
			return fmt.Errorf("%.60s…: %w", strings.TrimSpace(s), err)
		}
	}
	return nil
}

var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// placeholders is the highest $N of a statement: each statement takes the
// first N of the step's arguments.
func placeholders(s string) int {
	n := 0
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		var k int
		_, _ = fmt.Sscan(m[1], &k)
		n = max(n, k)
	}
	return n
}

// withoutIndexes runs fn (a bulk insert) with the secondary indexes of
// tables dropped, then builds them again, in the caller's transaction:
// building an index once is several times faster than maintaining it row by
// row (the invoices' two GIN indexes above all). The indexes of constraints
// stay; an index column's statistics target is set again.
func withoutIndexes(ctx context.Context, tx *sql.Tx, tables []string, fn func() error) error {
	rows, err := tx.QueryContext(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid),
	coalesce((SELECT string_agg(format('ALTER INDEX %s ALTER COLUMN %s SET STATISTICS %s', i.indexrelid::regclass, a.attnum, a.attstattarget), ';')
		FROM pg_attribute a WHERE a.attrelid = i.indexrelid AND a.attstattarget >= 0), '')
FROM pg_index i
WHERE i.indrelid = ANY ($1::text[]::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`, pgArray(tables))
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	var names, defs []string
	for rows.Next() {
		var name, def, stats string
		if err := rows.Scan(&name, &def, &stats); err != nil {
			return err
		}
		names, defs = append(names, name), append(defs, def)
		if stats != "" {
			defs = append(defs, stats)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, "DROP INDEX "+n); err != nil {
			return err
		}
	}
	if err := fn(); err != nil {
		return err
	}
	for _, d := range defs {
		t := time.Now()
		if _, err := tx.ExecContext(ctx, d); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if el := time.Since(t); el > 5*time.Second {
			fmt.Fprintf(os.Stderr, "gen:   %.70s… in %s\n", d, el.Round(100*time.Millisecond))
		}
	}
	return nil
}

func pgArray(s []string) string { return "{" + strings.Join(s, ",") + "}" }
