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
	Index       int64 // the op's position in the merged stream
	Fingerprint string
	Query       string
	Values      []capture.Value

	// Captured outcome.
	CapErr   bool
	CapCode  bindings.ErrorCode
	IsRead   bool      // captured a Rows result
	ExpPages []uint64  // digest of each captured page (first page first)
	exp1     [1]uint64 // ExpPages' backing store for single-page reads
	ExpRows  int
	Noise    string // why the captured result is nondeterministic, "" if it is not
	// NoCapture: a generated read, with no captured result to compare
	// with; compared with the baseline target only (every page).
	NoCapture bool

	// Target outcome.
	Out Outcome
}

// compare checks every read against the capture (the digest over as many
// target pages as the capture has pages) and against the baseline target
// (index base). checks[t] holds target t's reads in any order.
func compare(run *Run, checks [][]*readCheck, base int) {
	for _, cs := range checks {
		sort.Slice(cs, func(a, b int) bool { return cs[a].Index < cs[b].Index })
	}
	refs := checks[base]
	for t, cs := range checks {
		st := run.Targets[t]
		r := 0 // walks refs in step with cs: both are sorted by Index
		for _, c := range cs {
			var ref *readCheck
			for r < len(refs) && refs[r].Index < c.Index {
				r++
			}
			if r < len(refs) && refs[r].Index == c.Index {
				ref = refs[r]
			}
			cls := st.class(c.Fingerprint)
			if c.Out.Err || c.CapErr {
				continue
			}
			n := len(c.ExpPages)
			if c.NoCapture {
				if t == base || ref == nil || ref.Out.Err {
					continue // nothing to compare with
				}
				st.Compared++
				cls.Compared++
				if c.Noise != "" {
					st.Noise++
					cls.Noise++
				} else if got, want := c.Out.Digest(0), ref.Out.Digest(0); got != want {
					st.CrossMismatches++
					cls.Cross++
					addExample(cls, c, ref.Out.Rows(0), c.Out.Rows(0), run.Targets[base].Name)
				}
				continue
			}
			var want uint64
			for _, d := range c.ExpPages {
				want += d
			}
			st.Compared++
			cls.Compared++
			if c.Noise != "" {
				st.Noise++
				cls.Noise++
				continue
			}
			got := c.Out.Digest(n)
			if got != want {
				st.Mismatches++
				cls.Mismatches++
				addExample(cls, c, c.ExpRows, c.Out.Rows(n), "capture")
			}
			if t != base && ref != nil && !ref.Out.Err && ref.Out.Digest(n) != got {
				st.CrossMismatches++
				cls.Cross++
				addExample(cls, c, ref.Out.Rows(n), c.Out.Rows(n), run.Targets[base].Name)
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
