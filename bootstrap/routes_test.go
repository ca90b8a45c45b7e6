package bootstrap_test

import (
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/gorilla/mux"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/api/apitest"
	"github.com/acme3pl/fulfillment/bootstrap"
)

// TestRoutesAreDocumented walks the routes of the real fx graph's route groups and compares
// them with the operations of api/openapi.yaml, both ways: a route the document does not name
// is an undocumented part of the API; an operation no route serves is documentation of
// something the service does not do.
func TestRoutesAreDocumented(t *testing.T) {
	var groups []httpapi.Routes
	app := fx.New(append(bootstrap.Options(testConfig(t), io.Discard), fx.NopLogger,
		fx.Invoke(fx.Annotate(func(rs []httpapi.Routes) { groups = rs }, fx.ParamTags(`group:"routes"`))))...)
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	// The router httpapi.NewHandler builds holds exactly the routes the groups register.
	router := mux.NewRouter()
	for _, g := range groups {
		g.Register(router)
	}
	var served []string
	err := router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tmpl, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			return fmt.Errorf("route %s accepts every method: name them, and document each: %w", tmpl, err)
		}
		for _, m := range methods {
			served = append(served, m+" "+tmpl)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	v, err := apitest.New()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, op := range v.Operations() {
		documented = append(documented, op.String())
	}
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("the router serves %s, which api/openapi.yaml does not document", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("api/openapi.yaml documents %s, which the router does not serve", d)
		}
	}
	if len(served) == 0 {
		t.Fatal("the walk found no route")
	}
}
