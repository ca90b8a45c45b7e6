package operator_test

import (
	"testing"

	"github.com/acme3pl/fulfillment/domain/operator"
)

func TestRolesIncludeThoseBeforeThem(t *testing.T) {
	cases := []struct {
		have, need operator.Role
		want       bool
	}{
		{operator.Admin, operator.Viewer, true},
		{operator.Billing, operator.Ops, true},
		{operator.Ops, operator.Ops, true},
		{operator.Ops, operator.Billing, false},
		{operator.Viewer, operator.Ops, false},
		{operator.NoRole, operator.Viewer, false},
		{operator.Admin, operator.NoRole, false}, // no role is never a requirement that passes
	}
	for _, c := range cases {
		if got := c.have.Includes(c.need); got != c.want {
			t.Errorf("%q.Includes(%q) = %v, want %v", c.have, c.need, got, c.want)
		}
	}
}

func TestHighestRoleIgnoresOtherSystemsRoles(t *testing.T) {
	if got := operator.HighestRole([]string{"viewer", "wms-admin", " billing "}); got != operator.Billing {
		t.Errorf("HighestRole = %q, want billing", got)
	}
	if got := operator.HighestRole([]string{"Admin", "root"}); got != operator.NoRole {
		t.Errorf("HighestRole of no known name = %q, want none", got)
	}
	for _, r := range operator.Roles {
		if got, ok := operator.ParseRole(r.String()); !ok || got != r {
			t.Errorf("ParseRole(%q) = %q, %v", r.String(), got, ok)
		}
	}
}
