package engine

// timestamp ± duration and date ± duration in selections, as Cassandra
// 5.0's TemporalOperationFunction: Duration.addTo/substractFrom over the
// milliseconds (a date through its first millisecond, back with
// Duration.toDays, wrapping as Java's int). Without months it is plain
// arithmetic (days × 86,400,000 + nanoseconds / 1,000,000); with months
// it is java.util.GregorianCalendar in UTC: add(MONTH) keeps the day of
// the month, pinned to the new month's length, in the Julian calendar
// before 15 October 1582 (so '1500-01-31' + 1mo is 1500-03-03, the
// Gregorian of Julian 1500-02-22), then add(DAY_OF_MONTH) and
// add(MILLISECOND) with the milliseconds cast to an int.

import (
	"encoding/binary"
	"fmt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// temporalExpr is l op r with l a timestamp or date (kind k) and r a
// duration.
type temporalExpr struct {
	op   byte
	k    cql.Kind
	l, r expr
	sig  string // "timestamp + duration", for failures
}

const msPerDay = 86_400_000

func (e temporalExpr) eval(c *rowCtx) ([]byte, error) {
	lv, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	rv, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	return temporalArith(e.op, e.k, e.sig, lv, rv)
}

// temporalArith is lv op rv of a timestamp or date (kind k) and a
// duration, as Cassandra's Duration.addTo; null when either is.
func temporalArith(op byte, k cql.Kind, sig string, lv, rv []byte) ([]byte, error) {
	if len(lv) == 0 || len(rv) == 0 {
		return nil, nil
	}
	dv, err := cql.DecodeGo(cql.Scalar(cql.KindDuration), rv)
	if err != nil {
		return nil, err
	}
	d, ok := dv.(cql.Duration)
	if !ok {
		return nil, fmt.Errorf("temporal operation: a duration decoded as %T", dv)
	}
	written := d // messages name the duration before it is negated
	fail := func(format string) error {
		return bindings.Errorf(bindings.CodeFunctionFail, "the operation '%s' failed: "+format, sig, written)
	}
	if op == '-' {
		d = cql.Duration{Months: -d.Months, Days: -d.Days, Nanos: -d.Nanos}
	}
	switch k {
	case cql.KindTimestamp:
		if d.Nanos%1_000_000 != 0 {
			return nil, fail("The duration must have a millisecond precision. Was: %s")
		}
		if len(lv) != 8 {
			return nil, fmt.Errorf("temporal operation: a timestamp of %d bytes", len(lv))
		}
		ms := int64(binary.BigEndian.Uint64(lv))
		return be64(durationAddTo(ms, d)), nil
	default: // date
		if d.Nanos != 0 {
			return nil, fail("The duration must have a day precision. Was: %s")
		}
		if len(lv) != 4 {
			return nil, fmt.Errorf("temporal operation: a date of %d bytes", len(lv))
		}
		days := int64(int32(binary.BigEndian.Uint32(lv) ^ 0x80000000))
		ms := durationAddTo(days*msPerDay, d)
		// Duration.ofMillis(ms).toDays(): seconds floored, days truncated.
		out := floorDiv(ms, 1000) / 86_400
		return binary.BigEndian.AppendUint32(nil, uint32(int32(out))^0x80000000), nil
	}
}

// durationAddTo is Cassandra's Duration.add(millis, months, days, nanos).
func durationAddTo(ms int64, d cql.Duration) int64 {
	if d.Months == 0 {
		return ms + int64(d.Days)*msPerDay + d.Nanos/1_000_000
	}
	day, tod := floorDiv(ms, msPerDay), ms-floorDiv(ms, msPerDay)*msPerDay
	y, m, dd := hybridCivil(day)
	m += int64(d.Months) - 1 // months from 0
	y += floorDiv(m, 12)
	m = m - floorDiv(m, 12)*12 + 1
	dd = min(dd, hybridMonthLength(y, m))
	ms = hybridDay(y, m, dd)*msPerDay + tod
	ms += int64(d.Days) * msPerDay
	return ms + int64(int32(d.Nanos/1_000_000))
}

// cutoverDay is 15 October 1582 (Gregorian), the first day
// GregorianCalendar counts in the Gregorian calendar, in days since
// 1970-01-01.
const cutoverDay = -141_427

// julianDayOffset converts a Julian day number to days since the epoch.
const julianDayOffset = 2_440_588

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// hybridCivil is the (astronomical) year, month and day of an epoch day,
// Julian before the cutover.
func hybridCivil(day int64) (y, m, d int64) {
	jdn := day + julianDayOffset
	var c int64
	if day >= cutoverDay {
		a := jdn + 32044
		b := floorDiv(4*a+3, 146097)
		c = a - floorDiv(146097*b, 4)
		y = 100 * b
	} else {
		c = jdn + 32082
	}
	dd := floorDiv(4*c+3, 1461)
	e := c - floorDiv(1461*dd, 4)
	mm := floorDiv(5*e+2, 153)
	d = e - floorDiv(153*mm+2, 5) + 1
	m = mm + 3 - 12*floorDiv(mm, 10)
	y += dd - 4800 + floorDiv(mm, 10)
	return y, m, d
}

// hybridDay is the epoch day of a date given in the calendar in force
// (GregorianCalendar's lenient reading: a day of the 1582 gap is read as
// Julian).
func hybridDay(y, m, d int64) int64 {
	a := floorDiv(14-m, 12)
	yy := y + 4800 - a
	mm := m + 12*a - 3
	base := d + floorDiv(153*mm+2, 5) + 365*yy + floorDiv(yy, 4)
	greg := base - floorDiv(yy, 100) + floorDiv(yy, 400) - 32045 - julianDayOffset
	if y > 1582 || (y == 1582 && greg >= cutoverDay) {
		return greg
	}
	return base - 32083 - julianDayOffset
}

// hybridMonthLength is GregorianCalendar's month length: Gregorian leap
// years from 1582 on, Julian ones before.
func hybridMonthLength(y, m int64) int64 {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		leap := y&3 == 0
		if y >= 1582 {
			leap = leap && (y%100 != 0 || y%400 == 0)
		}
		if leap {
			return 29
		}
		return 28
	}
	return 31
}
