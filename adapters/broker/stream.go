package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream is the events stream: its name, the settings the service gives
// a stream it creates, and what it needs of one that exists already
// (docs/events.md).
type Stream struct {
	Name string
	// Replicas, MaxAge and DuplicateWindow are the settings of a stream the
	// service creates (EVENTS_STREAM_REPLICAS, EVENTS_STREAM_MAX_AGE,
	// EVENTS_DUPLICATE_WINDOW). An existing stream needs a duplicate window
	// of DuplicateWindow at least: an event published again after a relay
	// died between the broker's acknowledgement and its delete must still
	// be recognised.
	Replicas        int
	MaxAge          time.Duration
	DuplicateWindow time.Duration
	// Publishes is the subject space the service publishes to,
	// fulfillment.<environment>.>: an existing stream's subjects must
	// cover it.
	Publishes string
}

// config is the configuration of a stream the service creates.
func (s Stream) config() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name: s.Name, Subjects: []string{StreamSubjects}, Storage: jetstream.FileStorage,
		Replicas: max(s.Replicas, 1), MaxAge: s.MaxAge, Duplicates: s.DuplicateWindow,
	}
}

// Problems are what an existing stream's configuration lacks for the
// service, one sentence each; none when it is fit.
func (s Stream) Problems(c jetstream.StreamConfig) []string {
	var out []string
	if !coversAny(c.Subjects, s.Publishes) {
		out = append(out, fmt.Sprintf("its subjects %v do not cover %s, where the service publishes", c.Subjects, s.Publishes))
	}
	if c.Duplicates < s.DuplicateWindow {
		out = append(out, fmt.Sprintf("its duplicate window %s is shorter than EVENTS_DUPLICATE_WINDOW (%s): an event published again after a relay restart may be stored twice",
			c.Duplicates, s.DuplicateWindow))
	}
	return out
}

// coversAny tells whether one of filters matches every subject that
// subject (which may hold wildcards) matches.
func coversAny(filters []string, subject string) bool {
	for _, f := range filters {
		if covers(f, subject) {
			return true
		}
	}
	return false
}

// covers tells whether the NATS subject filter f matches every subject
// that s matches, token by token: ">" covers the rest (one token or more),
// "*" any one token (or "*"), a literal only itself.
func covers(f, s string) bool {
	ft, st := strings.Split(f, "."), strings.Split(s, ".")
	for i, t := range ft {
		if t == ">" {
			return i < len(st)
		}
		if i >= len(st) || st[i] == ">" {
			return false
		}
		if t != "*" && t != st[i] {
			return false
		}
	}
	return len(ft) == len(st)
}

// ensureStream makes sure the stream exists: a missing one is created with
// the service's settings (nil problems); an existing one is left as it is,
// and its problems are returned.
func ensureStream(ctx context.Context, js jetstream.JetStream, s Stream) ([]string, error) {
	for range 2 {
		st, err := js.Stream(ctx, s.Name)
		if err == nil {
			return s.Problems(st.CachedInfo().Config), nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("stream %s: %w", s.Name, err)
		}
		_, err = js.CreateStream(ctx, s.config())
		if err == nil {
			return nil, nil
		}
		// Created meanwhile by someone else with other settings (the same
		// settings, as another replica would, are no error): look again.
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, fmt.Errorf("create stream %s: %w", s.Name, err)
		}
	}
	return nil, fmt.Errorf("stream %s: created and deleted again meanwhile", s.Name)
}
