package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/console"
	"github.com/acme3pl/fulfillment/application"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
)

// ConsoleModule is the operator's console (docs/console.md), in the
// server's graph when CONSOLE_ADDR is set: its views, its guard, its
// sign-in, the page groups of consolePages, and its own listener on
// CONSOLE_ADDR, started and stopped with the server's.
var ConsoleModule = fx.Module("console",
	fx.Provide(
		console.NewViews,
		newConsoleOIDC,
		newConsoleGuard,
		AsConsoleRoutes(console.NewSignIn),
		fx.Annotate(newConsoleHandler, fx.ParamTags(`group:"console-routes"`)),
	),
	consolePages,
	fx.Invoke(startConsole),
)

// consoleOptions is ConsoleModule when cfg serves a console, else nothing.
func consoleOptions(cfg Config) fx.Option {
	if cfg.ConsoleAddr == "" {
		return fx.Options()
	}
	return ConsoleModule
}

// newConsoleOIDC is the console's OpenID Connect client, nil without
// CONSOLE_OIDC_ISSUER; in production the console refuses to start without
// one.
func newConsoleOIDC(cfg Config) (*console.OIDC, error) {
	if err := cfg.RequireConsole(); err != nil {
		return nil, err
	}
	if cfg.ConsoleOIDCIssuer == "" {
		return nil, nil
	}
	return console.NewOIDC(console.OIDCConfig{
		Issuer: cfg.ConsoleOIDCIssuer, ClientID: cfg.ConsoleOIDCClientID, ClientSecret: cfg.ConsoleOIDCClientSecret,
		RolesClaim: cfg.ConsoleOIDCRolesClaim, RedirectURL: cfg.ConsoleURL + console.PathCallback,
		HTTPClient: &http.Client{Timeout: 10 * time.Second},
	}), nil
}

func newConsoleGuard(sessions *operatorapp.UseCases, kernel *application.UseCases, views *console.Views, oidc *console.OIDC,
	log *slog.Logger,
) console.Guard {
	return console.NewSessionGuard(console.GuardParams{
		Sessions: sessions, Record: kernel.RecordOperatorAction, Views: views, OIDC: oidc != nil, Log: log,
	})
}

// consoleHandler is the console's handler, apart from the API's.
type consoleHandler struct{ http.Handler }

func newConsoleHandler(routes []console.Routes, g console.Guard, tracer trace.Tracer, log *slog.Logger) consoleHandler {
	return consoleHandler{console.NewHandler(console.HandlerParams{Routes: routes, Guard: g, Tracer: tracer, Log: log})}
}

// startConsole binds CONSOLE_ADDR in OnStart, so that a port clash fails
// start-up, and drains in OnStop, as startServer does for the API. Its
// writes may take as long as a download (EXPORT_TIMEOUT): a replay of an
// organization's failed orders answers when it ends.
func startConsole(lc fx.Lifecycle, sd fx.Shutdowner, cfg Config, h consoleHandler, log *slog.Logger) {
	srv := &http.Server{
		Addr: cfg.ConsoleAddr, Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: cfg.ExportTimeout, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			var lcfg net.ListenConfig
			ln, err := lcfg.Listen(ctx, "tcp", cfg.ConsoleAddr)
			if err != nil {
				return fmt.Errorf("listen on %s (CONSOLE_ADDR): %w", cfg.ConsoleAddr, err)
			}
			log.InfoContext(ctx, "serving the console", slog.String("addr", ln.Addr().String()), slog.String("url", cfg.ConsoleURL),
				slog.Bool("oidc", cfg.ConsoleOIDCIssuer != ""))
			serveCtx := context.WithoutCancel(ctx)
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.ErrorContext(serveCtx, "console server stopped", slog.String("error", err.Error()))
					_ = sd.Shutdown(fx.ExitCode(1))
				}
			}()
			return nil
		},
		OnStop: srv.Shutdown,
	})
}
