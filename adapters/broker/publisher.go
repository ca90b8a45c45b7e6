package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/ports"
)

// Config says how to reach the broker (EVENTS_NATS_*, EVENTS_STREAM).
type Config struct {
	URL    string // nats://host:4222; several, comma-separated
	Stream string // the stream, created with StreamSubjects when missing
	// Credentials, at most one kind: a .creds file (JWT and NKey seed), a
	// user and password, or a token. Credentials in URL work too.
	CredsFile, User, Password, Token string
	Name                             string // the connection's name on the server
}

// StreamSubjects are the subjects of the stream the service creates.
const StreamSubjects = "fulfillment.>"

// DuplicateWindow is the de-duplication window of the stream the service
// creates: an event published again within it (a relay that died between
// the broker's acknowledgement and its delete) is dropped by the broker.
const DuplicateWindow = 5 * time.Minute

// ackTimeout bounds the wait for one acknowledgement.
const ackTimeout = 2 * time.Second

// Connect connects to the broker. It does not wait for it: a broker that
// is away at start is connected to when it comes, and a lost connection
// is retried for ever (Connected is false meanwhile).
func Connect(cfg Config, log *slog.Logger) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(cfg.Name), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second), nats.Timeout(2 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("events broker disconnected", slog.String("error", err.Error()))
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("events broker reconnected", slog.String("url", nc.ConnectedUrlRedacted()))
		}),
	}
	switch {
	case cfg.CredsFile != "":
		opts = append(opts, nats.UserCredentials(cfg.CredsFile))
	case cfg.User != "":
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	case cfg.Token != "":
		opts = append(opts, nats.Token(cfg.Token))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to the events broker: %w", err)
	}
	return nc, nil
}

// Publisher implements ports.EventPublisher on JetStream.
type Publisher struct {
	nc       *nats.Conn
	js       jetstream.JetStream
	stream   string
	ensured  atomic.Bool
	tracer   trace.Tracer
	observed func(t ports.EventType, lag time.Duration)
}

var _ ports.EventPublisher = (*Publisher)(nil)

// NewPublisher publishes on nc to stream. observed is called for every
// event the broker acknowledged, with the time since its change wrote it.
func NewPublisher(nc *nats.Conn, stream string, tracer trace.Tracer, observed func(ports.EventType, time.Duration)) (*Publisher, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(ackTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	p := &Publisher{nc: nc, js: js, stream: stream, tracer: tracer, observed: observed}
	// A server that came back may have lost its streams: check again.
	logged := nc.Opts.ReconnectedCB
	nc.SetReconnectHandler(func(nc *nats.Conn) {
		p.ensured.Store(false)
		if logged != nil {
			logged(nc)
		}
	})
	return p, nil
}

// Connected implements ports.EventPublisher.
func (p *Publisher) Connected() bool { return p.nc.IsConnected() }

// EnsureStream makes sure the stream exists (ensureStream), once per
// connection.
func (p *Publisher) EnsureStream(ctx context.Context) error {
	if p.ensured.Load() {
		return nil
	}
	if err := ensureStream(ctx, p.js, p.stream); err != nil {
		return err
	}
	p.ensured.Store(true)
	return nil
}

// ensureStream creates the stream when it is missing, with StreamSubjects
// and DuplicateWindow; an existing stream is left as it is.
func ensureStream(ctx context.Context, js jetstream.JetStream, stream string) error {
	if _, err := js.Stream(ctx, stream); err != nil {
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("stream %s: %w", stream, err)
		}
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{
			Name: stream, Subjects: []string{StreamSubjects}, Storage: jetstream.FileStorage,
			Duplicates: DuplicateWindow,
		})
		if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return fmt.Errorf("create stream %s: %w", stream, err)
		}
	}
	return nil
}

// Publish implements ports.EventPublisher. Events go out in waves: the
// first waiting event of every subject, all at once, then, once each is
// acknowledged, the second of every subject, and so on — so an event is
// never sent before the one before it in its subject is stored. Every
// message carries Nats-Msg-Id = the event's ID, and its span links to the
// trace of the change that recorded it. The first wave with a failure is
// the last.
func (p *Publisher) Publish(ctx context.Context, events []ports.OutboxEvent) ([]int64, error) {
	if !p.Connected() {
		return nil, errors.New("events broker: not connected")
	}
	if err := p.EnsureStream(ctx); err != nil {
		return nil, err
	}
	var acked []int64
	for _, wave := range waves(events) {
		ok, err := p.publishWave(ctx, wave)
		acked = append(acked, ok...)
		if err != nil {
			return acked, err
		}
	}
	return acked, nil
}

// waves splits events (in outbox order) into waves: the k-th event of
// every subject is in wave k.
func waves(events []ports.OutboxEvent) [][]ports.OutboxEvent {
	var out [][]ports.OutboxEvent
	seen := map[string]int{}
	for _, e := range events {
		k := seen[e.Subject]
		seen[e.Subject] = k + 1
		if k == len(out) {
			out = append(out, nil)
		}
		out[k] = append(out[k], e)
	}
	return out
}

type inFlight struct {
	event  ports.OutboxEvent
	future jetstream.PubAckFuture
	span   trace.Span
}

// publishWave sends a wave and waits for every acknowledgement.
func (p *Publisher) publishWave(ctx context.Context, wave []ports.OutboxEvent) ([]int64, error) {
	sent := make([]inFlight, 0, len(wave))
	var errs []error
	for _, e := range wave {
		spanCtx, span := p.tracer.Start(ctx, "publish "+e.BrokerSubject, trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithLinks(changeLink(e.TraceParent)...), trace.WithAttributes(
				attribute.String("messaging.system", "nats"),
				attribute.String("messaging.destination.name", e.BrokerSubject),
				attribute.String("messaging.message.id", e.ID),
				attribute.String("cloudevents.event_type", string(e.Type)),
				attribute.String("cloudevents.event_subject", e.Subject),
			))
		msg := nats.NewMsg(e.BrokerSubject)
		msg.Data = e.Body
		msg.Header.Set(jetstream.MsgIDHeader, e.ID)
		propagation.TraceContext{}.Inject(spanCtx, propagation.HeaderCarrier(msg.Header))
		f, err := p.js.PublishMsgAsync(msg)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, "publish")
			span.End()
			errs = append(errs, fmt.Errorf("publish %s: %w", e.ID, err))
			continue
		}
		sent = append(sent, inFlight{event: e, future: f, span: span})
	}
	var acked []int64
	for _, s := range sent {
		select {
		case ack := <-s.future.Ok():
			acked = append(acked, s.event.Seq)
			s.span.SetAttributes(attribute.Bool("messaging.nats.duplicate", ack.Duplicate),
				attribute.Int64("messaging.nats.stream_sequence", int64(ack.Sequence)))
			if p.observed != nil {
				p.observed(s.event.Type, time.Since(s.event.RecordedAt))
			}
		case err := <-s.future.Err():
			s.span.RecordError(err)
			s.span.SetStatus(codes.Error, "publish")
			errs = append(errs, fmt.Errorf("publish %s: %w", s.event.ID, err))
		case <-ctx.Done():
			s.span.SetStatus(codes.Error, "publish")
			errs = append(errs, fmt.Errorf("publish %s: %w", s.event.ID, ctx.Err()))
		}
		s.span.End()
	}
	return acked, errors.Join(errs...)
}

// changeLink is the link to the change's span, from its traceparent.
func changeLink(traceparent string) []trace.Link {
	if traceparent == "" {
		return nil
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []trace.Link{{SpanContext: sc}}
}
