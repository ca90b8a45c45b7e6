package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/acme3pl/fulfillment/domain/operator"
)

// files holds the templates and the static files (the style sheet): the
// console is one binary with the service.
//
//go:embed templates static
var files embed.FS

// Views renders the pages: each templates/pages/NAME.html defines
// "title" and "content", rendered inside templates/layout.html with the
// partials of templates/*.html. Every template is parsed when the console
// is built, so a template that does not parse stops the service starting
// (and fails its tests), never a page.
type Views struct {
	pages map[string]*template.Template
}

// View is what every page's template is given: the signed-in principal
// (the layout's header and navigation), the page's path, and the page's
// own data.
type View struct {
	Principal operator.Principal
	Path      string
	Data      any
}

// NewViews parses every page.
func NewViews() (*Views, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("console templates: %w", err)
	}
	names, err := fs.Glob(files, "templates/pages/*.html")
	if err != nil {
		return nil, err
	}
	v := &Views{pages: make(map[string]*template.Template, len(names))}
	for _, name := range names {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(files, name); err != nil {
			return nil, fmt.Errorf("console page %s: %w", name, err)
		}
		v.pages[strings.TrimSuffix(path.Base(name), ".html")] = t
	}
	return v, nil
}

// Pages lists the pages' names, for the tests that render each.
func (v *Views) Pages() []string {
	names := make([]string, 0, len(v.pages))
	for n := range v.pages {
		names = append(names, n)
	}
	return names
}

// Render writes page with data and status. The page is rendered to a
// buffer first: a template that fails answers 500 without half a page.
func (v *Views) Render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	t, ok := v.pages[page]
	if !ok {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	view := View{Path: r.URL.Path, Data: data}
	view.Principal, _ = PrincipalFrom(r.Context())
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", view); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// Lacks tells whether the signed-in person's role does not include the
// named one: a page shows its actions to everyone (an action's refusal is
// recorded), and says beforehand which role they need.
func (v View) Lacks(role string) bool {
	need, ok := operator.ParseRole(role)
	return !ok || !v.Principal.Role.Includes(need)
}
