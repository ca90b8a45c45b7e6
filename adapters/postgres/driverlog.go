package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// LogDriverTo sends the lines that pgdriver and bun log themselves (a write
// to a connection that failed, a deprecation) to log, as warnings, instead
// of their default plain-text logger on stderr: the service's stderr holds
// JSON lines only. Both loggers are the libraries' globals: the last call
// wins.
func LogDriverTo(log *slog.Logger) {
	pgdriver.Logger = driverLog{log}
	bun.SetLogger(bunLog{log})
}

type driverLog struct{ log *slog.Logger }

func (d driverLog) Printf(ctx context.Context, format string, v ...any) {
	d.log.WarnContext(ctx, driverLine(format, v), slog.String("component", "pgdriver"))
}

type bunLog struct{ log *slog.Logger }

func (b bunLog) Printf(format string, v ...any) {
	b.log.Warn(driverLine(format, v), slog.String("component", "bun"))
}

// driverLine is the library's line without its own prefix.
func driverLine(format string, v []any) string {
	s := fmt.Sprintf(format, v...)
	for _, p := range []string{"pgdriver: ", "WARN: bun: ", "DEPRECATED: bun: ", "bun: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
