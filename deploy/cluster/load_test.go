package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// The storefront's patience: a webhook not answered within it counts as failed.
	deliveryDeadline = 5 * time.Second
	// Deliveries per second: a busy shop's order webhooks, far from the service's limits.
	deliveryRate = 30
	// Every redeliverEvery-th order is delivered deliveredAtOnce times at the same moment, each on
	// a connection of its own through the Service (so to whichever pods kube-proxy picks), as a
	// storefront does when it retries a webhook it thinks timed out: exactly-once is put to the test.
	redeliverEvery  = 10
	deliveredAtOnce = 3
)

// delivery is the outcome of one POST of an order.
type delivery struct {
	order      int64
	at         time.Time // when it was sent
	atOnce     bool      // a deliberate redelivery, sent at the same moment as the order's first delivery
	retry      bool      // a redelivery after a non-200 answer
	status     int       // 0: no answer (connection error or the storefront's deadline)
	retryAfter bool
	took       time.Duration
	err        error
	// The 200 answer's body.
	shipmentID string
	duplicate  bool
}

// acceptable is the contract's promise to the storefront: answered within 5 s
// with 200, or with 503 and Retry-After (the storefront retries).
func (d delivery) acceptable() bool {
	return d.took <= deliveryDeadline && (d.status == http.StatusOK || d.status == http.StatusServiceUnavailable && d.retryAfter)
}

// storefront sends distinct orders to the service through its Service's
// cluster IP, from inside the cluster's network namespace, one new connection
// per delivery (as a storefront's webhooks come).
type storefront struct {
	c      *cluster
	url    string // the intake's URL through the Service
	apiKey string
	client *http.Client
	next   atomic.Int64 // the next order id
}

func newStorefront(c *cluster, serviceURL, apiKey string, firstOrder int64) *storefront {
	s := &storefront{c: c, url: serviceURL + "/v0/storefront/orders", apiKey: apiKey}
	s.client = &http.Client{
		Timeout:   deliveryDeadline + time.Second,
		Transport: &http.Transport{DialContext: c.dial, DisableKeepAlives: true},
	}
	s.next.Store(firstOrder)
	return s
}

func orderPayload(id int64) []byte {
	return fmt.Appendf(nil, `{"id":%d,"order_number":%d,"test":false,"cancelled_at":null,`+
		`"line_items":[{"id":%d,"sku":%q,"quantity":%d,"requires_shipping":true}],`+
		`"shipping_address":{"name":"Zoë Müller","address1":"Straße des 17. Juni 135","address2":null,`+
		`"city":"Berlin","zip":"10623","country_code":"DE","phone":"+49 30 1234567"}}`,
		id, 1000+id%1_000_000, id*10+1, sku, 1+id%3)
}

func (s *storefront) deliver(ctx context.Context, order int64) delivery {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(orderPayload(order)))
	if err != nil {
		return delivery{order: order, at: start, err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.apiKey)
	resp, err := s.client.Do(req)
	d := delivery{order: order, at: start, took: time.Since(start), err: err}
	if err != nil {
		return d
	}
	body, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	d.took = time.Since(start)
	d.status = resp.StatusCode
	d.retryAfter = resp.Header.Get("Retry-After") != ""
	switch {
	case d.status != http.StatusOK:
		d.err = fmt.Errorf("status %d", d.status)
	case readErr != nil:
		d.err = fmt.Errorf("status 200, reading the body: %w", readErr)
	default:
		var accepted struct {
			ShipmentID string `json:"shipmentId"`
			Duplicate  bool   `json:"duplicate"`
		}
		if err := json.Unmarshal(body, &accepted); err != nil {
			d.err = fmt.Errorf("status 200, body %q: %w", body, err)
		}
		d.shipmentID, d.duplicate = accepted.ShipmentID, accepted.Duplicate
	}
	return d
}

// phase is one stretch of the day under load.
type phase struct {
	name       string
	took       time.Duration // from the first delivery to the last answer
	deliveries []delivery    // during the phase: each order's first, and the deliberate redeliveries at once
	retries    []delivery    // after the phase: each delivery not answered 200 again, until it is
}

// orders is the number of distinct orders the phase delivered.
func (p *phase) orders() int {
	seen := map[int64]bool{}
	for _, d := range p.deliveries {
		seen[d.order] = true
	}
	return len(seen)
}

// atOnce is the number of deliberate redeliveries at once.
func (p *phase) atOnce() int {
	n := 0
	for _, d := range p.deliveries {
		if d.atOnce {
			n++
		}
	}
	return n
}

// underLoad delivers orders at deliveryRate while action runs, and for
// settle more after it returns, every redeliverEvery-th one deliveredAtOnce
// times at the same moment; then redelivers every delivery that was not
// answered 200 until it is. It returns the phase's figures and action's
// error.
func (s *storefront) underLoad(name string, settle time.Duration, action func() error) (*phase, error) {
	p := &phase{name: name}
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second / deliveryRate)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			order := s.next.Add(1)
			copies := 1
			if order%redeliverEvery == 0 {
				copies = deliveredAtOnce
			}
			// The copies wait for one another, then go out together.
			gate := make(chan struct{})
			for i := range copies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-gate
					d := s.deliver(ctx, order)
					d.atOnce = i > 0
					mu.Lock()
					p.deliveries = append(p.deliveries, d)
					mu.Unlock()
				}()
			}
			close(gate)
		}
	}()
	// A moment of steady traffic before the action, and after it.
	time.Sleep(2 * time.Second)
	err := action()
	time.Sleep(settle)
	close(stop)
	wg.Wait()
	p.took = time.Since(start)
	sort.SliceStable(p.deliveries, func(i, j int) bool { return p.deliveries[i].order < p.deliveries[j].order })

	// The storefront retries every delivery not answered 200 until it is.
	for _, d := range p.deliveries {
		if d.status == http.StatusOK {
			continue
		}
		for attempt := 0; ; attempt++ {
			r := s.deliver(ctx, d.order)
			r.retry = true
			p.retries = append(p.retries, r)
			if r.status == http.StatusOK {
				break
			}
			if attempt == 20 {
				return p, fmt.Errorf("%s: order %d not accepted after %d redeliveries: last %w", name, d.order, attempt+1, r.err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return p, err
}

// statuses counts the phase's answers by status ("none" for no answer).
func (p *phase) statuses() map[string]int {
	m := map[string]int{}
	for _, d := range p.deliveries {
		k := fmt.Sprint(d.status)
		if d.status == 0 {
			k = "none"
		}
		m[k]++
	}
	return m
}

// unacceptable lists the deliveries that broke the promise to the storefront.
func (p *phase) unacceptable() []string {
	var out []string
	for _, d := range p.deliveries {
		if !d.acceptable() {
			out = append(out, fmt.Sprintf("order %d: status %d, Retry-After %v, %v: %v", d.order, d.status, d.retryAfter, d.took.Round(time.Millisecond), d.err))
		}
	}
	return out
}

func formatStatuses(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
