package replay

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// readCheck is what one target did with one op, next to what the capture
// says happened. Reads are compared at the end of the run, because a
// captured multi-page read's later pages arrive after its first page.
type readCheck struct {
	Fingerprint string
	Query       string
	Values      []capture.Value

	// Captured outcome.
	CapErr   bool
	CapCode  bindings.ErrorCode
	IsRead   bool     // captured a Rows result
	ExpPages []uint64 // digest of each captured page (first page first)
	ExpRows  int
	Noise    string // why the captured result is nondeterministic, "" if it is not

	// Target outcome.
	Out Outcome
}

// compare checks every read against the capture (the digest over as many
// target pages as the capture has pages) and against the first target.
func compare(run *Run, checks []map[int64]*readCheck) {
	idx := make([]int64, 0, len(checks[0]))
	for k := range checks[0] {
		idx = append(idx, k)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, k := range idx {
		ref := checks[0][k]
		for t, m := range checks {
			c := m[k]
			if c == nil {
				continue
			}
			st := run.Targets[t]
			cls := st.class(c.Fingerprint)
			if c.Out.Err || c.CapErr {
				continue
			}
			n := len(c.ExpPages)
			var want uint64
			for _, d := range c.ExpPages {
				want += d
			}
			st.Compared++
			if c.Noise != "" {
				st.Noise++
				cls.Noise++
				continue
			}
			if got := c.Out.Digest(n); got != want {
				st.Mismatches++
				cls.Mismatches++
				addExample(cls, c, c.ExpRows, c.Out.Rows(n), "capture")
			}
			if t > 0 && ref != nil && !ref.Out.Err && ref.Out.Digest(n) != c.Out.Digest(n) {
				st.CrossMismatches++
				addExample(cls, c, ref.Out.Rows(n), c.Out.Rows(n), run.Targets[0].Name)
			}
		}
	}
}

func addExample(cls *ClassStats, c *readCheck, want, got int, against string) {
	if len(cls.Examples) >= maxExamples {
		return
	}
	cls.Examples = append(cls.Examples, Example{Statement: short(c.Query), Values: formatValues(c.Values),
		WantRows: want, GotRows: got, Against: against})
}

// formatValues renders bound values as hex blobs (types are not known here).
func formatValues(vs []capture.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case v.Unset:
			parts[i] = "unset"
		case v.Redacted != capture.NotRedacted:
			parts[i] = "redacted"
		case v.Bytes == nil:
			parts[i] = "null"
		default:
			b := v.Bytes
			if len(b) > 32 {
				b = b[:32]
			}
			parts[i] = fmt.Sprintf("0x%x", b)
			if len(v.Bytes) > 32 {
				parts[i] += "…"
			}
		}
	}
	return strings.Join(parts, ", ")
}
