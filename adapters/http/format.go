package httpapi

import "time"

// timeLayout is the API's timestamp (api/openapi.yaml): RFC 3339, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in UTC with milliseconds.
func FormatTime(t time.Time) string {
	return string(appendTime(make([]byte, 0, len(timeLayout)), t))
}

// appendTime appends t as timeLayout, digit by digit: AppendFormat
// interprets the layout anew each time, and a list page holds some thirty
// timestamps. Years outside 0–9999, which the layout's four digits do not
// hold, go through AppendFormat.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, second := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, second, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// appendDigits appends n, 0 ≤ n < 10^width ≤ 10^4, in width digits.
func appendDigits(b []byte, n, width int) []byte {
	var digits [4]byte
	for i := width - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, digits[:width]...)
}

// FormatTimePtr is FormatTime for optional times; nil stays nil (JSON null).
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}
