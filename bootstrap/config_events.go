package bootstrap

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/postgres"
)

// EventsOn tells whether events are recorded and relayed: EVENTS_NATS_URL
// is set.
func (c Config) EventsOn() bool { return c.EventsNATSURL != "" }

// Broker is the events part of the configuration.
func (c Config) Broker() broker.Config {
	return broker.Config{
		URL: c.EventsNATSURL, Stream: c.EventsStream, CredsFile: c.EventsNATSCreds,
		User: c.EventsNATSUser, Password: c.EventsNATSPassword, Token: c.EventsNATSToken,
		Name: "fulfillment " + string(c.Environment),
	}
}

// EventsStreamSettings is the events stream: the settings of one the service
// creates, and what it needs of one that exists.
func (c Config) EventsStreamSettings() broker.Stream {
	return broker.Stream{
		Name: c.EventsStream, Replicas: c.EventsStreamReplicas, MaxAge: c.EventsStreamMaxAge,
		DuplicateWindow: c.EventsDuplicateWindow, Publishes: "fulfillment." + string(c.Environment) + ".>",
	}
}

// maxStreamReplicas is JetStream's bound on a stream's replicas.
const maxStreamReplicas = 5

// validateEvents checks the EVENTS_* settings.
func (c Config) validateEvents() error {
	if strings.TrimSpace(c.EventsStream) == "" || strings.ContainsAny(c.EventsStream, " \t\r\n.*>/\\") {
		return fmt.Errorf("EVENTS_STREAM: %q is not a stream name (letters, digits, - and _; for example FULFILLMENT)", c.EventsStream)
	}
	if c.EventsStreamReplicas < 1 || c.EventsStreamReplicas > maxStreamReplicas {
		return fmt.Errorf("EVENTS_STREAM_REPLICAS: %d, want 1 to %d (3 on a three-server cluster)", c.EventsStreamReplicas, maxStreamReplicas)
	}
	if c.EventsStreamMaxAge <= 0 {
		return fmt.Errorf("EVENTS_STREAM_MAX_AGE: %s, want a positive duration such as 168h", c.EventsStreamMaxAge)
	}
	// The broker refuses a duplicate window longer than the stream keeps
	// its messages.
	if c.EventsDuplicateWindow <= 0 || c.EventsDuplicateWindow > c.EventsStreamMaxAge {
		return fmt.Errorf("EVENTS_DUPLICATE_WINDOW: %s, want a positive duration no longer than EVENTS_STREAM_MAX_AGE (%s), such as 10m",
			c.EventsDuplicateWindow, c.EventsStreamMaxAge)
	}
	if !c.EventsOn() {
		return nil
	}
	for _, s := range strings.Split(c.EventsNATSURL, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss") {
			return errors.New("EVENTS_NATS_URL: not a nats://host:port URL (several may be given, comma-separated)")
		}
	}
	kinds := 0
	for _, set := range []bool{c.EventsNATSCreds != "", c.EventsNATSUser != "", c.EventsNATSToken != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		return errors.New("EVENTS_NATS_CREDS, EVENTS_NATS_USER and EVENTS_NATS_TOKEN: set one kind of credentials at most")
	case c.EventsNATSPassword != "" && c.EventsNATSUser == "":
		return errors.New("EVENTS_NATS_PASSWORD: set without EVENTS_NATS_USER")
	}
	return nil
}

// relayConns is the size of the relay's own connection pool: the relay
// never takes a connection the API's requests wait for, and a slow broker,
// which keeps the relay's transaction open, never holds the API's pool.
const relayConns = 2

// RelayDB is the relay's own pool of relayConns connections. No JIT in its
// sessions: the generic plan of claimEventsSQL is costed for full batches
// of every subject, past PostgreSQL's jit_above_cost, and compiling it took
// longer than running it — seconds, under load, until the statement timed
// out.
//
// Its sessions have bounds of their own: it serves no request, and a
// statement cut at the API's bound under load is work thrown away and done
// again; the broker's acknowledgements are bounded apart
// (eventsapp.PublishBudget, and the broker's bound on each).
func (c Config) RelayDB() postgres.Options {
	return postgres.Options{
		DSN: c.DatabaseURL, MaxOpenConns: relayConns,
		Limits: postgres.SessionLimits{
			StatementTimeout: 10 * time.Second, LockTimeout: c.SessionLimits().LockTimeout,
			IdleInTransactionTimeout: 10 * time.Second, IOTimeout: 15 * time.Second,
		},
	}
}
