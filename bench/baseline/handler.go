package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type handler struct {
	pool *pgxpool.Pool
	org  string
}

func newHandler(pool *pgxpool.Pool, org string) http.Handler {
	h := &handler{pool: pool, org: org}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0/invoices", h.list)
	mux.HandleFunc("GET /v0/invoices/{id}", h.get)
	mux.HandleFunc("POST /v0/storefront/orders", h.intake) // intake.go
	return mux
}

// The service's limits of skip and take.
const (
	defaultTake = 10
	maxTake     = 10
	maxSkip     = 1_000_000
)

var sortColumns = map[string]string{"createdAt": "created_at", "updatedAt": "updated_at", "dueDate": "due_date"}

var visibleStatuses = map[string]bool{"unpaid": true, "pending_payment": true, "paid": true, "cancelled": true, "refunded": true, "collecting": true}

// listParams reads the query as the service does: a parameter that is
// present must hold an allowed value; the last of a repeated one counts.
func listParams(q url.Values) (skip, take int, column string, ascending bool, status string, err error) {
	take, column = defaultTake, "created_at"
	last := func(name string) (string, bool) {
		v, ok := q[name]
		if !ok {
			return "", false
		}
		return v[len(v)-1], true
	}
	if v, ok := last("skip"); ok {
		if skip, err = strconv.Atoi(v); err != nil || skip < 0 || skip > maxSkip {
			return 0, 0, "", false, "", fmt.Errorf("skip: %q", v)
		}
	}
	if v, ok := last("take"); ok {
		if take, err = strconv.Atoi(v); err != nil || take < 1 || take > maxTake {
			return 0, 0, "", false, "", fmt.Errorf("take: %q", v)
		}
	}
	if v, ok := last("status"); ok {
		if !visibleStatuses[v] {
			return 0, 0, "", false, "", fmt.Errorf("status: %q", v)
		}
		status = v
	}
	if v, ok := last("sortBy"); ok {
		if column, ok = sortColumns[v]; !ok {
			return 0, 0, "", false, "", fmt.Errorf("sortBy: %q", v)
		}
	}
	if v, ok := last("sortOrder"); ok {
		if v != "asc" && v != "desc" {
			return 0, 0, "", false, "", fmt.Errorf("sortOrder: %q", v)
		}
		ascending = v == "asc"
	}
	if _, ok := last("search"); ok {
		return 0, 0, "", false, "", fmt.Errorf("search is not served by the baseline")
	}
	return skip, take, column, ascending, status, nil
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	skip, take, column, ascending, status, err := listParams(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	args := []any{h.org, skip}
	if status != "" {
		args = append(args, status)
	}
	invs, err := h.page(r.Context(), listSQL(column, ascending, status != ""), args...)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(invs) > take {
		invs = invs[:take]
		q.Set("skip", strconv.Itoa(skip+take))
		q.Set("take", strconv.Itoa(take))
		next := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
	}
	if err := h.items(r.Context(), invs); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, invs)
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	inv, found, err := h.detail(r.Context(), r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !found {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	writeJSON(w, inv)
}

func writeJSON(w http.ResponseWriter, v any) { writeStatusJSON(w, http.StatusOK, v) }

func writeStatusJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// timeLayout is the service's timestamp: UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// invoiceDest returns the destinations of the invoice columns in inv
// and the function that finishes inv after a row is scanned.
func invoiceDest(inv *invoice) ([]any, func()) {
	var key string
	var due, created, updated time.Time
	return []any{&inv.ID, &key, &inv.Status, &inv.Name, &inv.Notes, &due, &inv.Currency, &inv.TotalAmount, &created, &updated},
		func() {
			inv.DueDate, inv.CreatedAt, inv.UpdatedAt = due.UTC().Format(timeLayout), created.UTC().Format(timeLayout), updated.UTC().Format(timeLayout)
			inv.Items = []item{}
		}
}

// page runs a list statement (listSQL).
func (h *handler) page(ctx context.Context, sql string, args ...any) ([]invoice, error) {
	rows, err := h.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make([]invoice, 0, maxTake+1)
	var inv invoice
	dest, finish := invoiceDest(&inv)
	_, err = pgx.ForEachRow(rows, dest, func() error {
		finish()
		out = append(out, inv)
		return nil
	})
	return out, err
}

// items fills in the items of invs with itemsSQL.
func (h *handler) items(ctx context.Context, invs []invoice) error {
	if len(invs) == 0 {
		return nil
	}
	ids := make([]string, len(invs))
	at := make(map[string]int, len(invs))
	for i, inv := range invs {
		ids[i] = inv.ID
		at[inv.ID] = i
	}
	rows, err := h.pool.Query(ctx, itemsSQL, ids)
	if err != nil {
		return err
	}
	var it item
	var invoiceID, quantity string
	_, err = pgx.ForEachRow(rows, []any{&invoiceID, &it.ID, &it.Title, &it.Description, &quantity, &it.UnitCost, &it.TotalCost}, func() error {
		it.Quantity = json.Number(trimQuantity(quantity))
		invs[at[invoiceID]].Items = append(invs[at[invoiceID]].Items, it)
		return nil
	})
	return err
}

// detail runs detailSQL: the invoice's columns on the first row,
// an item's on each later one, NULL (a nil destination: skipped) the rest.
func (h *handler) detail(ctx context.Context, id string) (invoice, bool, error) {
	rows, err := h.pool.Query(ctx, detailSQL, h.org, id)
	if err != nil {
		return invoice{}, false, err
	}
	defer rows.Close()
	var inv invoice
	dest, finish := invoiceDest(&inv)
	dest = append(dest, make([]any, 7)...) // the item's columns and its position
	var it item
	var quantity string
	itemDest := append(make([]any, 10), // the invoice's columns
		&it.ID, &it.Title, &it.Description, &quantity, &it.UnitCost, &it.TotalCost, nil)
	found := false
	for rows.Next() {
		if !found {
			found = true
			if err := rows.Scan(dest...); err != nil {
				return invoice{}, false, err
			}
			finish()
			continue
		}
		if err := rows.Scan(itemDest...); err != nil {
			return invoice{}, false, err
		}
		it.Quantity = json.Number(trimQuantity(quantity))
		inv.Items = append(inv.Items, it)
	}
	if err := rows.Err(); err != nil || !found {
		return invoice{}, false, err
	}
	return inv, true, nil
}

// trimQuantity writes numeric(22,3) text as the service's quantities are
// written: without trailing zeros after the point ("62.000" → "62",
// "1.500" → "1.5").
func trimQuantity(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
