package mirror

import "time"

// SetClock replaces m's clock (before any traffic).
func SetClock(m *Mirror, now func() time.Time) { m.now = now }
