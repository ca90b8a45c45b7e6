package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acme3pl/fulfillment/domain"
)

// The invoice list and detail are the service's hottest answers; their JSON
// is written here without reflection: the bytes encoding/json would write
// for InvoiceDTO (Encoder.Encode: HTML-safe escaping, a final newline),
// which the tests check byte for byte, in a pooled buffer. A page of ten
// invoices costs a fifth of the CPU time and few allocations.

var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// writeInvoicesJSON writes invs as a JSON array of InvoiceDTO with status 200.
func writeInvoicesJSON(w http.ResponseWriter, invs []*domain.Invoice) {
	writePooledJSON(w, func(b []byte) []byte {
		b = append(b, '[')
		for i, inv := range invs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendInvoiceJSON(b, inv)
		}
		return append(b, ']')
	})
}

// writeInvoiceJSON writes inv as an InvoiceDTO with status 200.
func writeInvoiceJSON(w http.ResponseWriter, inv *domain.Invoice) {
	writePooledJSON(w, func(b []byte) []byte { return appendInvoiceJSON(b, inv) })
}

func writePooledJSON(w http.ResponseWriter, appendBody func([]byte) []byte) {
	buf := jsonBuffers.Get().(*[]byte)
	b := append(appendBody((*buf)[:0]), '\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= 1<<20 { // a rare huge answer is not kept
		*buf = b
		jsonBuffers.Put(buf)
	}
}

// appendInvoiceJSON appends invoiceDTO(inv) as JSON.
func appendInvoiceJSON(b []byte, inv *domain.Invoice) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, inv.ID())
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(inv.Status()))
	b = append(b, `,"name":`...)
	b = appendJSONString(b, inv.Name())
	b = append(b, `,"notes":`...)
	b = appendJSONString(b, inv.Notes())
	b = append(b, `,"dueDate":`...)
	b = appendJSONTime(b, inv.DueDate())
	b = append(b, `,"items":[`...)
	for i, it := range inv.Items() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, it.ID())
		b = append(b, `,"title":`...)
		b = appendJSONString(b, it.Title())
		b = append(b, `,"description":`...)
		b = appendJSONString(b, it.Description())
		b = append(b, `,"quantity":`...)
		b = appendQuantity(b, it.Quantity())
		b = append(b, `,"unitCost":`...)
		b = strconv.AppendInt(b, it.UnitCost(), 10)
		b = append(b, `,"totalCost":`...)
		b = strconv.AppendInt(b, it.TotalCost(), 10)
		b = append(b, '}')
	}
	b = append(b, `],"totalAmount":`...)
	b = strconv.AppendInt(b, inv.TotalAmount(), 10)
	b = append(b, `,"currency":`...)
	b = appendJSONString(b, inv.Currency())
	b = append(b, `,"createdAt":`...)
	b = appendJSONTime(b, inv.CreatedAt())
	b = append(b, `,"updatedAt":`...)
	b = appendJSONTime(b, inv.UpdatedAt())
	b = append(b, `,"deletedAt":`...)
	if d := inv.DeletedAt(); d != nil {
		b = appendJSONTime(b, *d)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendQuantity appends q as Quantity.String writes it (62, 1.5, 0.005):
// a JSON number.
func appendQuantity(b []byte, q domain.Quantity) []byte {
	m := q.Milli()
	b = strconv.AppendInt(b, m/domain.QuantityScale, 10)
	if frac := m % domain.QuantityScale; frac != 0 {
		b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return b
}

// appendJSONTime appends FormatTime(t) as a JSON string: its characters
// (digits, - : . T Z) need no escaping.
func appendJSONTime(b []byte, t time.Time) []byte {
	return append(appendTime(append(b, '"'), t), '"')
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping on (its default): quotes and backslashes, control characters,
// < > and &, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
