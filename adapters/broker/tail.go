package broker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Tail writes the events of stream to w, one JSON document a line, as they
// arrive — from the stream's first message when all is set, else from now
// — until ctx ends or, when limit > 0, limit events have been written. It
// is the consumer of `fulfillment events tail`: an ordered, ephemeral
// consumer, which leaves nothing behind on the server. A missing stream is
// created as the relay creates it, so that the tail can start first.
func Tail(ctx context.Context, nc *nats.Conn, s Stream, w io.Writer, all bool, limit int) error {
	stream := s.Name
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	if _, err := ensureStream(ctx, js, s); err != nil {
		return err
	}
	policy := jetstream.DeliverNewPolicy
	if all {
		policy = jetstream.DeliverAllPolicy
	}
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{DeliverPolicy: policy})
	if err != nil {
		return fmt.Errorf("consume stream %s: %w", stream, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("consume stream %s: %w", stream, err)
	}
	go func() {
		<-ctx.Done()
		it.Stop()
	}()
	for n := 0; limit <= 0 || n < limit; n++ {
		msg, err := it.Next()
		if err != nil {
			return tailEnd(ctx, stream, err)
		}
		if _, err := fmt.Fprintf(w, "%s\n", msg.Data()); err != nil {
			return err
		}
	}
	it.Stop()
	return nil
}

// tailEnd is how a tail whose iterator stopped ends: an interrupt (ctx
// ended, which stops the iterator) is its normal end; anything else is an
// error.
func tailEnd(ctx context.Context, stream string, err error) error {
	if errors.Is(err, jetstream.ErrMsgIteratorClosed) && ctx.Err() != nil {
		return nil //nolint:nilerr // stopped by the interrupt: no error
	}
	return fmt.Errorf("consume stream %s: %w", stream, err)
}
