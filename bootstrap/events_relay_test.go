package bootstrap

import (
	"testing"
	"time"
)

// The relay's pacing: an idle relay publishes a commit's events after
// relayGather; while events keep coming, runs start relayInterval apart;
// after a full run it goes on at once.
func TestRelayPause(t *testing.T) {
	idle := time.Hour // the last run that published is long past
	for _, c := range []struct {
		name      string
		byCommit  bool
		wait      time.Duration
		sinceLast time.Duration
		want      time.Duration
	}{
		{"idle, woken by a commit", true, relayPoll, idle, relayGather},
		{"idle, its poll", false, relayPoll, idle, 0},
		{"under load, woken by a commit", true, relayPoll, relayInterval / 5, relayInterval * 4 / 5},
		{"under load, its poll", false, relayPoll, relayInterval / 5, relayInterval * 4 / 5},
		{"under load, the interval nearly over", true, relayPoll, relayInterval - time.Millisecond, relayGather},
		{"after a full run", false, 0, 0, 0},
		{"backing off", false, time.Second, time.Second, 0},
	} {
		if got := relayPause(c.byCommit, c.wait, c.sinceLast); got != c.want {
			t.Errorf("%s: pause %s, want %s", c.name, got, c.want)
		}
	}
}
