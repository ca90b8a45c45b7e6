package bootstrap_test

import (
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/broker"
)

func TestEventsConfig(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	if c.EventsOn() || c.EventsStream != "FULFILLMENT" {
		t.Fatalf("defaults: on %v, stream %q; want off and FULFILLMENT", c.EventsOn(), c.EventsStream)
	}
	c = mustLoad(t, map[string]string{"EVENTS_NATS_URL": "nats://a:4222, nats://b:4222", "EVENTS_STREAM": "FULFILLMENT_EU",
		"EVENTS_NATS_USER": "u", "EVENTS_NATS_PASSWORD": "p", "ENVIRONMENT": "production"})
	b := c.Broker()
	if !c.EventsOn() || b.URL != "nats://a:4222, nats://b:4222" || b.Stream != "FULFILLMENT_EU" || b.User != "u" || b.Password != "p" ||
		b.Name != "fulfillment production" {
		t.Fatalf("broker config %+v", b)
	}
	if _, err := load(t, map[string]string{"EVENTS_NATS_TOKEN": "t"}); err != nil {
		t.Errorf("credentials without a URL (events off): %v, want them ignored", err)
	}
}

func TestEventsStreamSettings(t *testing.T) {
	c := mustLoad(t, map[string]string{"ENVIRONMENT": "production"})
	want := broker.Stream{Name: "FULFILLMENT", Replicas: 1, MaxAge: 168 * time.Hour, DuplicateWindow: 10 * time.Minute,
		Publishes: "fulfillment.production.>"}
	if got := c.EventsStreamSettings(); got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	c = mustLoad(t, map[string]string{"EVENTS_NATS_URL": "nats://a:4222,nats://b:4222,nats://c:4222", "EVENTS_STREAM_REPLICAS": "3",
		"EVENTS_STREAM_MAX_AGE": "720h", "EVENTS_DUPLICATE_WINDOW": "1h"})
	if s := c.EventsStreamSettings(); s.Replicas != 3 || s.MaxAge != 720*time.Hour || s.DuplicateWindow != time.Hour {
		t.Fatalf("settings %+v", s)
	}
}

func TestEventsConfigRefused(t *testing.T) {
	checkRefused(t, map[string]refusal{
		"a URL of another scheme":    {map[string]string{"EVENTS_NATS_URL": "http://nats:4222"}, "EVENTS_NATS_URL"},
		"a URL without a host":       {map[string]string{"EVENTS_NATS_URL": "nats://"}, "EVENTS_NATS_URL"},
		"one bad URL among several":  {map[string]string{"EVENTS_NATS_URL": "nats://a:4222,b:4222"}, "EVENTS_NATS_URL"},
		"a stream name with a dot":   {map[string]string{"EVENTS_STREAM": "FULFILL.MENT"}, "EVENTS_STREAM"},
		"a stream name with a space": {map[string]string{"EVENTS_STREAM": "A B"}, "EVENTS_STREAM"},
		"two kinds of credentials": {map[string]string{"EVENTS_NATS_URL": "nats://a:4222", "EVENTS_NATS_USER": "u",
			"EVENTS_NATS_TOKEN": "t"}, "one kind of credentials"},
		"a password without a user": {map[string]string{"EVENTS_NATS_URL": "nats://a:4222", "EVENTS_NATS_PASSWORD": "p"},
			"EVENTS_NATS_PASSWORD"},
		"no replicas":             {map[string]string{"EVENTS_STREAM_REPLICAS": "0"}, "EVENTS_STREAM_REPLICAS"},
		"more replicas than NATS": {map[string]string{"EVENTS_STREAM_REPLICAS": "7"}, "EVENTS_STREAM_REPLICAS"},
		"replicas not a number":   {map[string]string{"EVENTS_STREAM_REPLICAS": "three"}, "EVENTS_STREAM_REPLICAS"},
		"no max age":              {map[string]string{"EVENTS_STREAM_MAX_AGE": "0s"}, "EVENTS_STREAM_MAX_AGE"},
		"a max age in days":       {map[string]string{"EVENTS_STREAM_MAX_AGE": "7d"}, "EVENTS_STREAM_MAX_AGE"},
		"no duplicate window":     {map[string]string{"EVENTS_DUPLICATE_WINDOW": "0s"}, "EVENTS_DUPLICATE_WINDOW"},
		"a window past the max age": {map[string]string{"EVENTS_STREAM_MAX_AGE": "1h", "EVENTS_DUPLICATE_WINDOW": "2h"},
			"EVENTS_DUPLICATE_WINDOW"},
	})
}
