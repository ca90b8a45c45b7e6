package billing

import (
	"fmt"
	"time"
)

// Calendar places instants in days and months of the billing time zone
// (BILLING_TIMEZONE): a period is a calendar month there, a day of storage
// one of its days.
type Calendar struct{ loc *time.Location }

// NewCalendar returns the calendar of loc; nil is UTC.
func NewCalendar(loc *time.Location) Calendar {
	if loc == nil {
		loc = time.UTC
	}
	return Calendar{loc: loc}
}

// Location is the calendar's time zone.
func (c Calendar) Location() *time.Location {
	if c.loc == nil {
		return time.UTC
	}
	return c.loc
}

// Day is the calendar day holding t.
func (c Calendar) Day(t time.Time) Date { return DateOf(t.In(c.Location())) }

// Start is the first instant of day d.
func (c Calendar) Start(d Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, c.Location())
}

// LastInstant is the last instant of day d that PostgreSQL can store (a
// microsecond before the next day): the time of d's storage, which belongs
// to the period that holds the end of the day.
func (c Calendar) LastInstant(d Date) time.Time {
	return c.Start(d.AddDays(1)).Add(-time.Microsecond)
}

// MonthStart is the first instant of the month holding t.
func (c Calendar) MonthStart(t time.Time) time.Time {
	y, m, _ := t.In(c.Location()).Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, c.Location())
}

// NextMonthStart is the first instant of the month after the one holding t:
// the end of a period that starts at t.
func (c Calendar) NextMonthStart(t time.Time) time.Time {
	y, m, _ := t.In(c.Location()).Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, c.Location())
}

// DaysInMonth is the number of days of d's month: the divisor of a day of
// storage (a monthly fee billed per day).
func DaysInMonth(d Date) int {
	return time.Date(d.Year, d.Month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// MonthName names the month holding t, e.g. "October 2026": an invoice's
// name and the period a late charge was for.
func (c Calendar) MonthName(t time.Time) string {
	y, m, _ := t.In(c.Location()).Date()
	return fmt.Sprintf("%s %d", m, y)
}

// Period is an organization's billing period: from Start (inclusive) to End
// (exclusive). It is a calendar month, or less when `billing close` ended
// it early or the previous one was closed early.
type Period struct {
	Start time.Time
	End   time.Time
}

// Name names the period for an invoice: the month ("November 2026"), or its
// days when it is not the whole month ("November 1–15, 2026").
func (c Calendar) Name(p Period) string {
	start, end := p.Start.In(c.Location()), p.End.In(c.Location())
	if start.Equal(c.MonthStart(start)) && end.Equal(c.NextMonthStart(start)) {
		return c.MonthName(start)
	}
	last := c.Day(end.Add(-time.Microsecond))
	first := DateOf(start)
	if first == last { // one day: "December 7, 2026"
		return fmt.Sprintf("%s %d, %d", first.Month, first.Day, first.Year)
	}
	if first.Year == last.Year && first.Month == last.Month {
		return fmt.Sprintf("%s %d–%d, %d", first.Month, first.Day, last.Day, first.Year)
	}
	return fmt.Sprintf("%s %d, %d – %s %d, %d", first.Month, first.Day, first.Year, last.Month, last.Day, last.Year)
}

// ClosedName names the closed period that holds at, for the line of a
// charge dated there and billed on the open period starting at openStart
// ("(for October 2026)"): the month of at, or — when at lies in the month
// a close ended at openStart, before it — that month's days up to the
// close ("December 1–7, 2026"), so that the label never names the open
// invoice's own period.
func (c Calendar) ClosedName(at, openStart time.Time) string {
	month := c.MonthStart(at)
	if !openStart.Equal(c.MonthStart(openStart)) && month.Equal(c.MonthStart(openStart)) {
		return c.Name(Period{Start: month, End: openStart})
	}
	return c.MonthName(at)
}

// Due reports whether period p is past its grace at now: its invoice is
// finalized then.
func (p Period) Due(now time.Time, grace time.Duration) bool {
	return !now.Before(p.End.Add(grace))
}

// Holds reports whether t falls in p.
func (p Period) Holds(t time.Time) bool { return !t.Before(p.Start) && t.Before(p.End) }
