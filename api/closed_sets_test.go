package api_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/api"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/domain/shipping"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// closedSet is a closed set of values the domain lists once, and where
// else it is written: the constants of its type, in its Go package;
// enums of api/openapi.yaml, each by its path in the document; CHECK
// constraints of the migrated schema that list the values of one column;
// and the lists of the docs.
type closedSet struct {
	name    string
	domain  []string
	consts  *goConsts
	enums   []enumPath
	columns []column
	docs    []docList
}

// goConsts are the string constants of a type in the Go package of a
// directory (relative to the repository): a constant declared and left
// out of the set's list is a value the list's readers (the metrics'
// labels, a parser) never see.
type goConsts struct{ dir, typ string }

func (c goConsts) String() string { return c.dir + "'s constants of type " + c.typ }

// enumPath is the path of an enum in api/openapi.yaml: mapping keys, and
// "name=VALUE" for the element of a sequence whose name is VALUE (a
// parameter).
type enumPath []string

func (p enumPath) String() string { return strings.Join(p, " › ") }

// column is a table's column whose CHECK constraint lists the set.
type column struct{ table, name string }

func (c column) String() string { return c.table + "." + c.name }

// closedSets are the domain's closed sets that have copies outside Go.
// The fees (billing.Fees, as the metrics' fee label built from them), the
// event types (eventsports.EventTypes) and the audit actions (audit.Actions) have
// none in api/openapi.yaml or in the schema, only in the docs.
func closedSets() []closedSet {
	return []closedSet{{
		name:    "shipping.ShipmentKinds",
		domain:  names(shipping.ShipmentKinds),
		consts:  &goConsts{"domain/shipping", "ShipmentKind"},
		enums:   []enumPath{schemaProperty("Shipment", "kind"), schemaProperty("WarehouseShipment", "kind")},
		columns: []column{{"shipments", "kind"}},
		docs:    []docList{metricLabel("fulfillment_shipment_transitions_total", "kind")},
	}, {
		// The metrics' status label is built from the list, and
		// docs/observability.md names the API's enum rather than copy it.
		name:    "shipping.ShipmentStatuses",
		domain:  names(shipping.ShipmentStatuses),
		consts:  &goConsts{"domain/shipping", "ShipmentStatus"},
		enums:   []enumPath{{"components", "schemas", "ShipmentStatus", "enum"}},
		columns: []column{{"shipments", "status"}},
	}, {
		name:   "shipping.WarehouseStatuses",
		domain: names(shipping.WarehouseStatuses),
		enums:  []enumPath{{"paths", "/v0/warehouse/shipments", "get", "parameters", "name=status", "schema", "enum"}},
	}, {
		name:   "invoicing.VisibleInvoiceStatuses",
		domain: names(invoicing.VisibleInvoiceStatuses),
		enums:  []enumPath{{"components", "schemas", "InvoiceStatus", "enum"}},
	}, {
		name:    "invoicing.InvoiceStatuses",
		domain:  names(invoicing.InvoiceStatuses),
		consts:  &goConsts{"domain/invoicing", "InvoiceStatus"},
		columns: []column{{"invoices", "status"}},
	}, {
		name:    "operator.Roles",
		domain:  roleNames(operator.Roles),
		columns: []column{{"console_sessions", "role"}, {"console_signin_links", "role"}},
	}, {
		name:   "telemetry.BillingFees (billing.Fees)",
		domain: telemetry.BillingFees,
		docs:   []docList{metricLabel("fulfillment_billing_charges_total", "fee")},
	}, {
		name:   "eventsports.EventTypes",
		domain: names(eventsports.EventTypes),
		consts: &goConsts{"ports/events", "EventType"},
		docs:   []docList{tableColumn("docs/events.md", "type"), metricLabel("fulfillment_events_published_total", "type")},
	}, {
		name:   "audit.Actions",
		domain: names(audit.Actions),
		consts: &goConsts{"domain/audit", "Action"},
		docs:   []docList{tableColumn("docs/audit.md", "action")},
	}}
}

func schemaProperty(schema, property string) enumPath {
	return enumPath{"components", "schemas", schema, "properties", property, "enum"}
}

func names[S ~[]E, E ~string](set S) []string {
	out := make([]string, len(set))
	for i, v := range set {
		out[i] = string(v)
	}
	return out
}

func roleNames(roles []operator.Role) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = r.String()
	}
	return out
}

// Each closed set is listed once, in the domain; its copies in
// api/openapi.yaml (in the same order: the reference shows them) and in
// the migrated schema's CHECK constraints (as a set) must list the same
// values. A status added to the domain and forgotten in a copy fails here.
func TestClosedSetsMatchTheirCopies(t *testing.T) {
	doc := openAPIDocument(t)
	checks := checkLists(t)
	for _, set := range closedSets() {
		t.Run(set.name, func(t *testing.T) {
			if len(set.domain) == 0 || slices.Contains(set.domain, "") {
				t.Fatalf("the domain's list %q is empty or holds an empty name", set.domain)
			}
			if set.consts != nil {
				got, err := set.consts.values()
				switch {
				case err != nil:
					t.Errorf("%s: %v", set.consts, err)
				case difference(set.domain, got) != "":
					t.Errorf("%s are %q, the domain's list %q: %s", set.consts, got, set.domain, difference(set.domain, got))
				}
			}
			for _, p := range set.enums {
				got, err := enumAt(doc, p)
				if err != nil {
					t.Errorf("api/openapi.yaml %s: %v", p, err)
					continue
				}
				if !slices.Equal(got, set.domain) {
					t.Errorf("api/openapi.yaml %s is %q, the domain's list %q", p, got, set.domain)
				}
			}
			for _, c := range set.columns {
				got, ok := checks[c]
				if !ok {
					t.Errorf("%s: no CHECK constraint lists its values in the migrated schema", c)
					continue
				}
				if d := difference(set.domain, got); d != "" {
					t.Errorf("the CHECK constraint of %s lists %q, the domain's list %q: %s", c, got, set.domain, d)
				}
			}
			for _, l := range set.docs {
				got, err := l.values()
				if err != nil {
					t.Errorf("%s: %v", l.where, err)
					continue
				}
				if d := difference(set.domain, got); d != "" {
					t.Errorf("%s lists %q, the domain's list %q: %s", l.where, got, set.domain, d)
				}
			}
		})
	}
}

// openAPIDocument is api/openapi.yaml as plain maps and sequences.
func openAPIDocument(t *testing.T) any {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(api.YAML(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// enumAt is the enum at path p of doc: a sequence of strings.
func enumAt(doc any, p enumPath) ([]string, error) {
	n := doc
	for i, key := range p {
		switch v := n.(type) {
		case map[string]any:
			next, ok := v[key]
			if !ok {
				return nil, fmt.Errorf("no %q at %s", key, p[:i])
			}
			n = next
		case []any:
			field, value, ok := strings.Cut(key, "=")
			if !ok {
				return nil, fmt.Errorf("%s is a sequence: want NAME=VALUE, not %q", p[:i], key)
			}
			idx := slices.IndexFunc(v, func(e any) bool {
				m, ok := e.(map[string]any)
				return ok && m[field] == value
			})
			if idx < 0 {
				return nil, fmt.Errorf("no element with %s at %s", key, p[:i])
			}
			n = v[idx]
		default:
			return nil, fmt.Errorf("%s is a %T, not a mapping or a sequence", p[:i], n)
		}
	}
	seq, ok := n.([]any)
	if !ok {
		return nil, fmt.Errorf("a %T, not a sequence", n)
	}
	out := make([]string, len(seq))
	for i, e := range seq {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("value %v is not a string", e)
		}
		out[i] = s
	}
	return out, nil
}

// columnChecksSQL lists the CHECK constraints of the public tables that
// name one column, with their definitions as PostgreSQL prints them.
const columnChecksSQL = `SELECT c.conrelid::regclass::text AS table_name, a.attname AS column_name,
	pg_get_constraintdef(c.oid) AS definition
FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
WHERE c.contype = 'c' AND cardinality(c.conkey) = 1 AND c.connamespace = 'public'::regnamespace
ORDER BY 1, 2, c.conname`

// valueList is a column's CHECK (col IN ('a', 'b')) as PostgreSQL prints it:
// CHECK ((col = ANY (ARRAY['a'::text, 'b'::text]))), perhaps NOT VALID.
var (
	valueList = regexp.MustCompile(`^CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)( NOT VALID)?$`)
	textValue = regexp.MustCompile(`^'([^']*)'::text$`)
)

// checkLists migrates a database of its own and returns, by column, the
// values of the one CHECK constraint that lists a column's values. A column
// with two such constraints fails the test: which one holds is unclear.
func checkLists(t *testing.T) map[column][]string {
	t.Helper()
	db := pgtest.Open(t, pgtest.Database(t, true))
	var rows []struct {
		TableName  string `bun:"table_name"`
		ColumnName string `bun:"column_name"`
		Definition string `bun:"definition"`
	}
	if err := db.NewRaw(columnChecksSQL).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[column][]string{}
	for _, r := range rows {
		m := valueList.FindStringSubmatch(r.Definition)
		if m == nil || m[1] != r.ColumnName {
			continue
		}
		c := column{r.TableName, r.ColumnName}
		if _, dup := out[c]; dup {
			t.Fatalf("%s has two CHECK constraints listing its values", c)
		}
		var values []string
		for _, v := range strings.Split(m[2], ", ") {
			tv := textValue.FindStringSubmatch(v)
			if tv == nil {
				t.Fatalf("%s: cannot read %q in %s", c, v, r.Definition)
			}
			values = append(values, tv[1])
		}
		out[c] = values
	}
	return out
}

// difference says what want has and got lacks, and what got has and want
// lacks; "" when they hold the same values.
func difference(want, got []string) string {
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	var d []string
	if len(missing) > 0 {
		d = append(d, fmt.Sprintf("lacks %q", missing))
	}
	if len(extra) > 0 {
		d = append(d, fmt.Sprintf("has %q besides", extra))
	}
	return strings.Join(d, ", ")
}

// docList is a list of a closed set's values in the docs (compared as a
// set: a doc may order them as its text reads best).
type docList struct {
	where  string
	values func() ([]string, error)
}

// backticked are the `code` spans of a line of Markdown.
var backticked = regexp.MustCompile("`([^`]+)`")

// tableColumn is the first column of the table of file (relative to the
// repository) whose header's first cell is header: one `value` a row.
func tableColumn(file, header string) docList {
	return docList{where: fmt.Sprintf("%s, the table of %q", file, header), values: func() ([]string, error) {
		b, err := os.ReadFile("../" + file)
		if err != nil {
			return nil, err
		}
		var out []string
		in := false
		for line := range strings.Lines(string(b)) {
			cells := strings.Split(strings.TrimSpace(line), "|")
			if len(cells) < 3 || cells[0] != "" {
				if in {
					break
				}
				continue
			}
			first := strings.TrimSpace(cells[1])
			switch {
			case !in && first == header:
				in = true
			case in && strings.Trim(first, "-") == "":
			case in:
				m := backticked.FindStringSubmatch(first)
				if m == nil {
					return nil, fmt.Errorf("row %q names no `value`", strings.TrimSpace(line))
				}
				out = append(out, m[1])
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no table whose header starts with %q", header)
		}
		return out, nil
	}}
}

// metricLabel is the values docs/observability.md gives a label of a
// metric, in its table of metrics: "`label` (`a`, `b`: …)".
func metricLabel(metric, label string) docList {
	const file = "docs/observability.md"
	return docList{where: fmt.Sprintf("%s, %s{%s}", file, metric, label), values: func() ([]string, error) {
		b, err := os.ReadFile("../" + file)
		if err != nil {
			return nil, err
		}
		values := regexp.MustCompile("`" + regexp.QuoteMeta(label) + "` \\(([^)]*)\\)")
		for line := range strings.Lines(string(b)) {
			if !strings.HasPrefix(line, "| `"+metric+"` |") {
				continue
			}
			m := values.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("its row gives no values of %s", label)
			}
			var out []string
			for _, v := range backticked.FindAllStringSubmatch(m[1], -1) {
				out = append(out, v[1])
			}
			return out, nil
		}
		return nil, fmt.Errorf("no row of %s", metric)
	}}
}

// values are the values of the constants of type c.typ declared, each with
// its type and a string literal, in the non-test Go files of c.dir.
func (c goConsts) values() ([]string, error) {
	dir := "../" + c.dir
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+e.Name(), nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != c.typ {
					continue
				}
				for _, value := range v.Values {
					lit, ok := value.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("%s: a constant of type %s whose value is not a string literal", e.Name(), c.typ)
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no constant of type %s (has the type moved?)", c.typ)
	}
	return out, nil
}
