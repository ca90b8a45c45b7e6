package warehouse_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

func svcReport() warehouse.ServiceReport {
	return warehouse.ServiceReport{
		WarehouseID: "wh_1", OrganizationID: "org_1", Reference: "JOB-1",
		Service: "kitting", QuantityMilli: 1500, Note: "gift sets",
	}
}

// newServiceRecord is the service svc_1 made at recvNow.
func newServiceRecord(r warehouse.ServiceReport) (*warehouse.ServiceRecord, error) {
	return warehouse.NewServiceRecord("svc_1", recvNow, r)
}

func TestNewServiceRecordValidates(t *testing.T) {
	future := recvNow.Add(time.Millisecond)
	past := recvNow.Add(-time.Hour)
	domaintest.Edits(t, svcReport, newServiceRecord, []domaintest.Edit[warehouse.ServiceReport]{
		{Name: "valid", Edit: func(p *warehouse.ServiceReport) {}, WantField: ""},
		{Name: "in the past", Edit: func(p *warehouse.ServiceReport) { p.PerformedAt = &past }, WantField: ""},
		{Name: "in the future", Edit: func(p *warehouse.ServiceReport) { p.PerformedAt = &future }, WantField: "performedAt"},
		{Name: "no organization", Edit: func(p *warehouse.ServiceReport) { p.OrganizationID = "" }, WantField: "organizationId"},
		{Name: "no reference", Edit: func(p *warehouse.ServiceReport) { p.Reference = "" }, WantField: "reference"},
		{Name: "no service", Edit: func(p *warehouse.ServiceReport) { p.Service = "" }, WantField: "service"},
		{Name: "a padded service", Edit: func(p *warehouse.ServiceReport) { p.Service = " kitting" }, WantField: "service"},
		{Name: "a long service", Edit: func(p *warehouse.ServiceReport) { p.Service = strings.Repeat("s", 65) }, WantField: "service"},
		{Name: "zero quantity", Edit: func(p *warehouse.ServiceReport) { p.QuantityMilli = 0 }, WantField: "quantity"},
		{Name: "quantity above the bound", Edit: func(p *warehouse.ServiceReport) { p.QuantityMilli = warehouse.MaxServiceMilli + 1 }, WantField: "quantity"},
		{Name: "a long note", Edit: func(p *warehouse.ServiceReport) { p.Note = strings.Repeat("n", 1001) }, WantField: "note"},
		{Name: "no note", Edit: func(p *warehouse.ServiceReport) { p.Note = "" }, WantField: ""},
	})
}

func TestServiceRecordSameContent(t *testing.T) {
	at := recvNow.Add(-time.Hour)
	mk := func(edit func(p *warehouse.ServiceReport)) *warehouse.ServiceRecord {
		return domaintest.Made(t, svcReport, newServiceRecord, edit)
	}
	stored := mk(func(p *warehouse.ServiceReport) { p.PerformedAt = &at })
	tests := []struct {
		name  string
		retry func(p *warehouse.ServiceReport)
		want  bool
	}{
		{"identical", func(p *warehouse.ServiceReport) { p.PerformedAt = &at }, true},
		{"no time given", func(p *warehouse.ServiceReport) {}, true},
		{"another time", func(p *warehouse.ServiceReport) { other := at.Add(time.Second); p.PerformedAt = &other }, false},
		{"another quantity", func(p *warehouse.ServiceReport) { p.QuantityMilli = 1501 }, false},
		{"another service", func(p *warehouse.ServiceReport) { p.Service = "labor_hour" }, false},
		{"another note", func(p *warehouse.ServiceReport) { p.Note = "" }, false},
		{"another organization", func(p *warehouse.ServiceReport) { p.OrganizationID = "org_2" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mk(tt.retry).SameContent(stored); got != tt.want {
				t.Fatalf("SameContent = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseMilli(t *testing.T) {
	tests := []struct {
		text    string
		want    int64
		wantErr bool
	}{
		{text: "1", want: 1000},
		{text: "1.5", want: 1500},
		{text: "0.001", want: 1},
		{text: "1.500", want: 1500},
		{text: "1.5000", want: 1500},
		{text: "15e-1", want: 1500},
		{text: "1.5E2", want: 150000},
		{text: "0.00015e1", wantErr: true},
		{text: "1e9", want: warehouse.MaxServiceMilli},
		{text: "1000000000", want: warehouse.MaxServiceMilli},
		{text: "1000000000.001", wantErr: true},
		{text: "1e99999", wantErr: true},
		{text: "1e-99999", wantErr: true},
		{text: "0", wantErr: true},
		{text: "0.0001", wantErr: true},
		{text: "1.2345", wantErr: true},
		{text: "-1", wantErr: true},
		{text: "99999999999999999999999", wantErr: true},
		{text: "1.", wantErr: true},
		{text: ".5", wantErr: true},
		{text: "\"1\"", wantErr: true},
		{text: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := warehouse.ParseMilli("quantity", tt.text)
			if tt.wantErr {
				domaintest.MatchField(t, err, "quantity")
			} else if err != nil || got != tt.want {
				t.Fatalf("ParseMilli(%q) = %d, %v; want %d", tt.text, got, err, tt.want)
			}
		})
	}
}

func TestFormatMilli(t *testing.T) {
	for n, want := range map[int64]string{1500: "1.5", 2000: "2", 1: "0.001", 1010: "1.01", 0: "0", -2500: "-2.5"} {
		if got := warehouse.FormatMilli(n); got != want {
			t.Errorf("FormatMilli(%d) = %q, want %q", n, got, want)
		}
	}
}
