package bootstrap_test

import (
	"strings"
	"testing"
	"time"
)

func TestConfigBilling(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	b := c.Billing()
	if b.Calendar.Location().String() != "UTC" || b.Grace != 24*time.Hour || b.Terms != 720*time.Hour ||
		b.CollectionsAfter != 720*time.Hour || c.BillingInterval != 15*time.Minute {
		t.Errorf("defaults: %+v, interval %v", b, c.BillingInterval)
	}
	c = mustLoad(t, map[string]string{"BILLING_TIMEZONE": "America/New_York", "BILLING_GRACE": "0s",
		"BILLING_TERMS": "87600h", "BILLING_COLLECTIONS_AFTER": "36h", "BILLING_INTERVAL": "1s"})
	if b := c.Billing(); b.Calendar.Location().String() != "America/New_York" || b.Grace != 0 || b.Terms != 87600*time.Hour ||
		b.CollectionsAfter != 36*time.Hour || c.BillingInterval != time.Second {
		t.Errorf("set: %+v, interval %v", b, c.BillingInterval)
	}
}

func TestConfigBillingInvalid(t *testing.T) {
	tests := map[string]string{
		"BILLING_TIMEZONE=Mars/Olympus":     "BILLING_TIMEZONE",
		"BILLING_TIMEZONE=":                 "BILLING_TIMEZONE",
		"BILLING_TIMEZONE=Local":            "BILLING_TIMEZONE",
		"BILLING_GRACE=-1s":                 "BILLING_GRACE",
		"BILLING_GRACE=87601h":              "BILLING_GRACE",
		"BILLING_TERMS=soon":                "BILLING_TERMS",
		"BILLING_COLLECTIONS_AFTER=100000h": "BILLING_COLLECTIONS_AFTER",
		"BILLING_INTERVAL=999ms":            "BILLING_INTERVAL",
		"BILLING_INTERVAL=25h":              "BILLING_INTERVAL",
	}
	for kv, want := range tests {
		k, v, _ := strings.Cut(kv, "=")
		_, err := load(t, map[string]string{k: v})
		if err == nil || !strings.HasPrefix(err.Error(), want+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %s:", kv, err, want)
		}
	}
}
