package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acme3pl/fulfillment/adapters/postgres"
)

// pgdriver's own line (a write on a connection that failed) comes out of
// the service's logger as a JSON warning, not as plain text on stderr.
func TestDriverLinesGoThroughTheServiceLogger(t *testing.T) {
	var out bytes.Buffer
	postgres.LogDriverTo(slog.New(slog.NewJSONHandler(&out, nil)))
	t.Cleanup(func() { postgres.LogDriverTo(slog.New(slog.DiscardHandler)) })
	cn, err := postgres.ConnectPG(context.Background(), pgdriver.NewConnector(pgdriver.WithDSN(testDSN)))
	if err != nil {
		t.Fatal(err)
	}
	_ = cn.Conn().Close() // the socket fails under the driver
	if _, err := cn.ExecContext(context.Background(), "SELECT 1", nil); err == nil {
		t.Fatal("a statement ran on a closed socket")
	}
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &line); err != nil {
		t.Fatalf("pgdriver's line is not one JSON line: %q", out.String())
	}
	if line["level"] != "WARN" || line["component"] != "pgdriver" || !strings.Contains(line["msg"].(string), "Conn.Write failed") {
		t.Fatalf("pgdriver's line: %v", line)
	}
}
