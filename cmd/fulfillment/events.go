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
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/broker"
	eventsapp "github.com/acme3pl/fulfillment/application/events"
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

// relayDeps is what `events relay` asks of the command graph: the relay,
// built as the servers' (on a pool like theirs), and its broker's
// connection.
type relayDeps struct {
	fx.In
	Relay  *eventsapp.RelayEventsHandler
	Broker *nats.Conn
}

// eventsRelay publishes what waits in the outbox, as the servers' relays
// do, until it is empty.
func eventsRelay(ctx context.Context, cfg bootstrap.Config, stdout io.Writer) error {
	return command(ctx, cfg, 1, func(ctx context.Context, d relayDeps) error {
		wait, cancel := context.WithTimeout(ctx, brokerWait)
		defer cancel()
		if err := bootstrap.AwaitBroker(wait, d.Broker); err != nil {
			return err
		}
		total := 0
		for {
			n, err := d.Relay.Handle(ctx, eventsapp.RelayEvents{})
			total += n
			if err != nil {
				return fmt.Errorf("events relay: published %d, then: %w", total, err)
			}
			if n == 0 {
				fmt.Fprintf(stdout, "published %d events\n", total)
				return nil
			}
		}
	})
}
