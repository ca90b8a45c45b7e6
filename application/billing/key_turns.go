package billing

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acme3pl/fulfillment/ports"
)

// Keys are gapless in finalization order (docs/billing.md, "Numbering"):
// a finalization that takes its keys from the year's counter holds the
// counter's row until it commits, and the next one waits for it. Writing
// a batch's invoices is most of its work (their search indexes), so a run
// numbers its batches' invoices in advance instead: each batch of a round
// plans its keys after the batch before it (its keyTurn), writes its
// invoices with them while that batch is still writing, and claims them
// from the counter once that batch has committed — a compare-and-set that
// holds the counter only from there to its own commit. A claim fails when
// anything else took keys meanwhile (a `billing close`, another replica's
// run, a batch before it that failed): the batch then rolls back and is
// finalized again taking its keys from the counter, and the round's later
// batches do the same.

// errKeysTaken is a failed claim: the batch is finalized again.
var errKeysTaken = errors.New("the planned invoice keys were taken meanwhile")

// keyTurn is one batch's place in its round's numbering. A nil turn takes
// keys from the counter (a close, a batch finalized again).
type keyTurn struct {
	prev   *keyTurn
	broken *atomic.Bool // a claim of the round failed: the later batches take keys from the counter

	planOnce sync.Once
	planned  chan struct{} // closed once next is set
	next     ports.KeyPlan // the first key after the batch's; zero: none planned, the next batch takes keys from the counter

	chained bool // the batch planned its keys (or, having no invoice, passed its predecessor's plan on)
	keys    int  // how many it planned

	doneOnce sync.Once
	done     chan struct{} // closed once the batch's transaction has ended
	claimed  bool          // the batch committed the keys it planned (or passed on a plan that held)
}

// newKeyTurns makes the turns of a round's n batches.
func newKeyTurns(n int) []*keyTurn {
	broken := &atomic.Bool{}
	turns := make([]*keyTurn, n)
	for i := range turns {
		turns[i] = &keyTurn{broken: broken, planned: make(chan struct{}), done: make(chan struct{})}
		if i > 0 {
			turns[i].prev = turns[i-1]
		}
	}
	return turns
}

// publish sets the plan that the next batch follows (once).
func (t *keyTurn) publish(next ports.KeyPlan) {
	t.planOnce.Do(func() {
		t.next = next
		close(t.planned)
	})
}

// end records how the batch's transaction ended (once): committed tells
// whether it did.
func (t *keyTurn) end(committed bool) {
	t.publish(ports.KeyPlan{}) // a batch that ended before planning: the next takes keys from the counter
	t.doneOnce.Do(func() {
		t.claimed = committed && t.chained && !t.broken.Load()
		close(t.done)
	})
}

// ready waits until the batch before t has planned, before t locks anything:
// a batch that waits for another while holding locks could wait for one
// that waits for it.
func (t *keyTurn) ready(ctx context.Context) error {
	if t == nil || t.prev == nil {
		return nil
	}
	select {
	case <-t.prev.planned:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// plan numbers the invoices of fs: after the batch before t's, or from the
// counter's next key for the round's first batch. The zero plan (keys from
// the counter) for a nil turn, after a failed claim, when the batch before
// planned none, or when the invoices are of more than one year.
func (t *keyTurn) plan(ctx context.Context, r ports.Repositories, fs []ports.Finalization) (ports.KeyPlan, error) {
	if t == nil {
		return ports.KeyPlan{}, nil
	}
	var years []int
	n := 0
	for _, f := range fs {
		if f.Invoice != nil {
			if y := f.Invoice.FinalizedAt.UTC().Year(); !slices.Contains(years, y) {
				years = append(years, y)
			}
			n++
		}
	}
	var after ports.KeyPlan // the first key after the batch before
	switch {
	case t.broken.Load() || len(years) > 1:
	case t.prev != nil:
		after = t.prev.next // ready waited for it
	case n > 0:
		first, err := r.BillingPeriods.NextKey(ctx, years[0])
		if err != nil {
			t.publish(ports.KeyPlan{})
			return ports.KeyPlan{}, err
		}
		after = ports.KeyPlan{Year: years[0], First: first}
	}
	if n == 0 { // no key to take: the plan passes on
		t.chained = after.First > 0
		t.publish(after)
		return ports.KeyPlan{}, nil
	}
	if after.First == 0 || after.Year != years[0] {
		t.publish(ports.KeyPlan{})
		return ports.KeyPlan{}, nil
	}
	t.chained, t.keys = true, n
	t.publish(ports.KeyPlan{Year: after.Year, First: after.First + n})
	return after, nil
}

// claim claims the keys of plan once the batch before has ended: errKeysTaken
// when that batch did not commit its own or the counter moved meanwhile.
// Nothing to claim for the zero plan; a batch that passed a plan on waits
// all the same, so that the claims of a round follow one another.
func (t *keyTurn) claim(ctx context.Context, r ports.Repositories, plan ports.KeyPlan) error {
	if t == nil || !t.chained {
		return nil
	}
	if t.prev != nil {
		select {
		case <-t.prev.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !t.prev.claimed {
			t.broken.Store(true)
		}
	}
	if plan.First == 0 { // a plan passed on: no key to claim
		return nil
	}
	if t.broken.Load() {
		return errKeysTaken
	}
	ok, err := r.BillingPeriods.ClaimKeys(ctx, plan, t.keys)
	if err != nil {
		return err
	}
	if !ok {
		t.broken.Store(true)
		return errKeysTaken
	}
	return nil
}
