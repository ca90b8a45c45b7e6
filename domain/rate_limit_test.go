package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

func TestParseRateLimit(t *testing.T) {
	tests := []struct {
		in                   string
		burst                int
		wantCount, wantBurst int
		wantPeriod           time.Duration
		wantErr              bool
	}{
		{in: "20/s", wantCount: 20, wantPeriod: time.Second, wantBurst: 40},
		{in: "50/s", burst: 100, wantCount: 50, wantPeriod: time.Second, wantBurst: 100},
		{in: " 1200/m ", burst: 5, wantCount: 1200, wantPeriod: time.Minute, wantBurst: 5},
		{in: "1/h", wantCount: 1, wantPeriod: time.Hour, wantBurst: 2},
		{in: "0/s", wantErr: true},
		{in: "-1/s", wantErr: true},
		{in: "20", wantErr: true},
		{in: "20/d", wantErr: true},
		{in: "x/s", wantErr: true},
		{in: "1000001/s", wantErr: true},
		{in: "20/s", burst: -1, wantErr: true},
		{in: "20/s", burst: 1_000_001, wantErr: true},
	}
	for _, tt := range tests {
		got, err := domain.ParseRateLimit(tt.in, tt.burst)
		if tt.wantErr {
			var v *domain.ValidationError
			if !errors.As(err, &v) {
				t.Errorf("ParseRateLimit(%q, %d) = %v, %v; want a validation error", tt.in, tt.burst, got, err)
			}
			continue
		}
		if err != nil || got.Count() != tt.wantCount || got.Period() != tt.wantPeriod || got.Burst() != tt.wantBurst {
			t.Errorf("ParseRateLimit(%q, %d) = %v, %v; want %d per %s burst %d", tt.in, tt.burst, got, err, tt.wantCount, tt.wantPeriod, tt.wantBurst)
		}
		if again, err := domain.ParseRateLimit(got.Rate(), got.Burst()); err != nil || again != got {
			t.Errorf("ParseRateLimit(%q) does not read its own Rate %q back: %v, %v", tt.in, got.Rate(), again, err)
		}
	}
}
