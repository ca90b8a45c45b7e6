package main

// `fulfillment events`: the platform's events (docs/events.md) — watch
// them on the broker, or relay the outbox once.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/bootstrap"
)

// brokerWait bounds the wait for the broker to answer.
const brokerWait = 10 * time.Second

func events(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("events takes one of tail, relay")
	}
	if !cfg.EventsOn() {
		return errors.New("events: EVENTS_NATS_URL is not set")
	}
	switch args[0] {
	case "tail":
		return eventsTail(ctx, cfg, args[1:], stdout)
	case "relay":
		if len(args) > 1 {
			return usagef("events relay takes no arguments")
		}
		return eventsRelay(ctx, cfg, stdout)
	}
	return usagef("events: unknown subcommand %q (tail, relay)", args[0])
}

// eventsTail prints the stream's events, one CloudEvent (JSON) a line,
// until interrupted or --count have arrived.
func eventsTail(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("events tail")
	all := fs.Bool("all", false, "from the stream's first event, not from now")
	count := fs.Int("count", 0, "stop after this many events (0: until interrupted)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *count < 0 {
		return usagef("events tail takes [--all] [--count N]")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	wait, cancel := context.WithTimeout(ctx, brokerWait)
	defer cancel()
	nc, err := bootstrap.ConnectBroker(wait, cfg, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := broker.Tail(ctx, nc, cfg.EventsStreamSettings(), stdout, *all, *count); err != nil {
		return fmt.Errorf("events tail: %w", err)
	}
	return nil
}

// eventsRelay publishes what waits in the outbox, as the servers' relays
// do (on a pool like theirs), until it is empty.
func eventsRelay(ctx context.Context, cfg bootstrap.Config, stdout io.Writer) error {
	db, err := postgres.Open(cfg.RelayDB())
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	wait, cancelWait := context.WithTimeout(ctx, brokerWait)
	defer cancelWait()
	nc, err := bootstrap.ConnectBroker(wait, cfg, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	tracer := noop.NewTracerProvider().Tracer("")
	pub, err := broker.NewPublisher(nc, cfg.EventsStreamSettings(), broker.PublisherOptions{Tracer: tracer, Checked: func(problems []string) {
		if len(problems) > 0 {
			log.ErrorContext(ctx, "events stream misconfigured: the service uses it as it is and never edits it; see docs/runbook.md",
				slog.String("stream", cfg.EventsStream), slog.String("problems", strings.Join(problems, "; ")))
		}
	}})
	if err != nil {
		return err
	}
	relay := application.NewRelayEventsHandler(postgres.NewEventOutboxRepository(db), pub, tracer, 0)
	total := 0
	for {
		n, err := relay.Handle(ctx, application.RelayEvents{})
		total += n
		if err != nil {
			return fmt.Errorf("events relay: published %d, then: %w", total, err)
		}
		if n == 0 {
			fmt.Fprintf(stdout, "published %d events\n", total)
			return nil
		}
	}
}
