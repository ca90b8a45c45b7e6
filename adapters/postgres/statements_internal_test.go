package postgres

import "testing"

// TestOperation: a statement's span is named by its declared command
// (statement), the command its text runs: checked here against operation,
// the parser that named the spans before the statements declared it (the
// context packages': TestContextOperations).
func TestOperation(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"\n\tupdate order_receipts SET status = $1", "UPDATE"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
	} {
		if got := operation(tt.sql); got != tt.want {
			t.Errorf("operation(%.40q) = %s, want %s", tt.sql, got, tt.want)
		}
	}
}
