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
	"go.opentelemetry.io/otel/trace/noop"

	eventsports "github.com/acme3pl/fulfillment/ports/events"
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

// ackTimeout bounds the wait for one acknowledgement: an event the broker
// has not acknowledged by then fails, and waits in the outbox for the next
// batch.
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

// Publisher implements eventsports.EventPublisher on JetStream.
type Publisher struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream Stream
	// ensured: the stream was found or created since the last failure.
	// A reconnection or a failed publish clears it, so that a stream lost
	// by the server or deleted by an operator is created again by the next
	// batch.
	ensured atomic.Bool
	opts    PublisherOptions
}

// PublisherOptions are what a Publisher reports to, all optional.
type PublisherOptions struct {
	Tracer trace.Tracer // nil: no spans
	// Observed is called for every event the broker acknowledged, with
	// the time since its change wrote it.
	Observed func(t eventsports.EventType, lag time.Duration)
	// Checked is called each time the stream is looked at (EnsureStream:
	// at start or the first batch, and again after a reconnection or a
	// failed publish), with what it lacks for the service
	// (Stream.Problems); nil problems when it is fit or the publisher
	// created it.
	Checked func(problems []string)
}

var _ eventsports.EventPublisher = (*Publisher)(nil)

// NewPublisher publishes on nc to stream.
func NewPublisher(nc *nats.Conn, stream Stream, opts PublisherOptions) (*Publisher, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(ackTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if opts.Tracer == nil {
		opts.Tracer = noop.NewTracerProvider().Tracer("")
	}
	p := &Publisher{nc: nc, js: js, stream: stream, opts: opts}
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

// Connected implements eventsports.EventPublisher.
func (p *Publisher) Connected() bool { return p.nc.IsConnected() }

// EnsureStream makes sure the stream exists (ensureStream) and reports an
// existing one's problems to Checked; once, until a reconnection or a
// failed publish.
func (p *Publisher) EnsureStream(ctx context.Context) error {
	if p.ensured.Load() {
		return nil
	}
	// Its own bound, not the batch's budget (which only stops sending):
	// a batch whose time is up still looks at the stream once.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
	defer cancel()
	problems, err := ensureStream(ctx, p.js, p.stream)
	if err != nil {
		return err
	}
	if p.opts.Checked != nil {
		p.opts.Checked(problems)
	}
	p.ensured.Store(true)
	return nil
}

// Publish implements eventsports.EventPublisher. Events go out in waves: the
// first waiting event of every subject, all at once, then, once each is
// acknowledged, the second of every subject, and so on — so an event is
// never sent before the one before it in its subject is stored, and what
// is acknowledged is a leading run of each subject's events. Every
// message carries Nats-Msg-Id = the event's ID, and its span links to the
// trace of the change that recorded it.
//
// Each event has its own deadline (ackTimeout), not the batch: a wave
// with a failure is the last, and once ctx is done no wave starts but the
// first — the waves sent are waited for, so that what the broker took is
// reported (acked) and kept. A subject with thousands of events waiting
// drains one round trip per event, batch after batch, however slow the
// link.
func (p *Publisher) Publish(ctx context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
	if !p.Connected() {
		return nil, errors.New("events broker: not connected")
	}
	if err := p.EnsureStream(ctx); err != nil {
		return nil, err
	}
	var acked []int64
	for i, wave := range waves(events) {
		if i > 0 && timeUp(ctx) {
			break // the rest waits for the next batch
		}
		ok, err := p.publishWave(ctx, wave)
		acked = append(acked, ok...)
		if err != nil {
			// The stream may be gone (deleted by an operator, lost by a
			// server): the next batch looks, and creates it if so.
			p.ensured.Store(false)
			return acked, err
		}
	}
	return acked, nil
}

// timeUp tells whether the batch's time is up: ctx is done.
func timeUp(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// waves splits events (in outbox order) into waves: the k-th event of
// every subject is in wave k.
func waves(events []eventsports.OutboxEvent) [][]eventsports.OutboxEvent {
	var out [][]eventsports.OutboxEvent
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
	event  eventsports.OutboxEvent
	future jetstream.PubAckFuture
	span   trace.Span
}

// publishWave sends a wave and waits for every acknowledgement or
// failure, each within ackTimeout of its sending; ctx only parents the
// spans.
func (p *Publisher) publishWave(ctx context.Context, wave []eventsports.OutboxEvent) ([]int64, error) {
	sent := make([]inFlight, 0, len(wave))
	var errs []error
	for _, e := range wave {
		spanCtx, span := p.opts.Tracer.Start(ctx, "publish "+e.BrokerSubject, trace.WithSpanKind(trace.SpanKindProducer),
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
	// The futures end by themselves within ackTimeout; the guard is for a
	// path of the client that would not end one.
	guard := time.NewTimer(ackTimeout + time.Second)
	defer guard.Stop()
	var acked []int64
	for _, s := range sent {
		select {
		case ack := <-s.future.Ok():
			acked = append(acked, s.event.Seq)
			s.span.SetAttributes(attribute.Bool("messaging.nats.duplicate", ack.Duplicate),
				attribute.Int64("messaging.nats.stream_sequence", int64(ack.Sequence)))
			if p.opts.Observed != nil {
				p.opts.Observed(s.event.Type, time.Since(s.event.RecordedAt))
			}
		case err := <-s.future.Err():
			s.span.RecordError(err)
			s.span.SetStatus(codes.Error, "publish")
			errs = append(errs, fmt.Errorf("publish %s: %w", s.event.ID, err))
		case <-guard.C:
			s.span.SetStatus(codes.Error, "publish")
			errs = append(errs, fmt.Errorf("publish %s: %w", s.event.ID, jetstream.ErrAsyncPublishTimeout))
			guard.Reset(0) // the rest of the wave ends at once
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
