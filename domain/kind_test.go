package domain_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
)

// kindsDeclared reads kind.go's constants of type Kind: the one list of
// the kinds, as written.
func kindsDeclared(t *testing.T) map[string]domain.Kind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "kind.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]domain.Kind{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Kind" {
				continue
			}
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				kinds[name.Name] = domain.Kind(s)
			}
		}
	}
	return kinds
}

// Every kind has a value of its own and a code, and none is both a fault
// and a refusal.
func TestKindsAreConsistent(t *testing.T) {
	kinds := kindsDeclared(t)
	if len(kinds) < 20 || kinds["KindInternal"] != domain.KindInternal || kinds["KindInvalid"] != domain.KindInvalid {
		t.Fatalf("read %d kinds from kind.go (%v): the parse missed them", len(kinds), kinds)
	}
	seen := map[domain.Kind]string{}
	for name, k := range kinds {
		if other, ok := seen[k]; ok {
			t.Errorf("%s and %s are both %q", name, other, k)
		}
		seen[k] = name
		if k.Fault() && k.Refused() {
			t.Errorf("%s is both a fault and a refusal", k)
		}
		if k.Code() == "" {
			t.Errorf("%s has no code", k)
		}
	}
}

// An error declared with its kind says it through any wrapping, and is
// still matched by errors.Is; WithKind overrides the kinds it wraps.
func TestNewErrorAndWithKind(t *testing.T) {
	wrapped := fmt.Errorf("get: %w", domain.ErrNotFound)
	var k domain.KindedError
	if !errors.As(wrapped, &k) || k.ErrorKind() != domain.KindNotFound || !errors.Is(wrapped, domain.ErrNotFound) {
		t.Fatalf("wrapped ErrNotFound: kind %v, Is %v", k, errors.Is(wrapped, domain.ErrNotFound))
	}
	if domain.ErrNotFound.Error() != "not found" {
		t.Errorf("message %q", domain.ErrNotFound.Error())
	}
	over := domain.WithKind(domain.KindConflict, fmt.Errorf("%w: %w", domain.Invalid("id", "bad"), domain.ErrNotFound))
	if !errors.As(over, &k) || k.ErrorKind() != domain.KindConflict {
		t.Errorf("WithKind: kind %v, want conflict", k)
	}
	var v *domain.ValidationError
	if over.Error() != "invalid id: bad: not found" || !errors.As(over, &v) || !errors.Is(over, domain.ErrNotFound) {
		t.Errorf("WithKind changed the error: %q", over.Error())
	}
}
