package mirror

import (
	"fmt"
	"time"

	"github.com/dohyo/dohyo/replay"
	"github.com/dohyo/dohyo/replay/hdr"
)

// ReportOptions say what Report covers and how it names things.
type ReportOptions struct {
	// Window is how far back the report reaches (at most an hour; 0: the
	// whole hour kept).
	Window time.Duration
	// Primary names the primary backend (its URL without secrets:
	// replay.RedactURL).
	Primary string
	// Version is dohyo's version, for the report's conditions.
	Version string
}

// primaryName is the primary's target name in a report.
const primaryName = "primary"

// Report is the live comparison of the last Window as a replay-format
// report: one run per mirror, comparing the mirror with the primary on
// exactly the requests it applied, each minute of the window a round
// (medians and bootstrap intervals over minutes). Latencies are the
// primary's answers to clients and the mirror's applies, binned at ±5%.
func (m *Mirror) Report(opt ReportOptions) *replay.Report {
	now := m.now()
	if opt.Window <= 0 || opt.Window > liveSlices*sliceLen {
		opt.Window = liveSlices * sliceLen
	}
	r := &replay.Report{Conditions: replay.Conditions{
		Mode:         "live mirroring",
		CaptureStart: now.Add(-opt.Window), CaptureEnd: now,
		DohyoVersion: opt.Version,
		Baseline:     primaryName,
		Order:        "live traffic: the primary answers clients, each mirror applies the same requests asynchronously; each minute of the window is a round",
		Targets:      []replay.TargetInfo{{Name: primaryName, URL: opt.Primary}},
		Warnings: []string{"live mirroring: a mirror's load is the primary's traffic, so its throughput equals the primary's by construction; " +
			"compare latencies (a mirror applies each partition's requests in order, " + fmt.Sprint(m.cfg.Workers) + " workers per mirror)"},
	}}
	for _, tc := range m.cfg.Targets {
		t := m.targets[tc.Name]
		name := tc.Name
		r.Conditions.Targets = append(r.Conditions.Targets, replay.TargetInfo{Name: name, URL: name})
		slices, lens := t.live.window(now, opt.Window)
		run := &replay.Run{Label: "mirror " + name, Rounds: len(slices),
			Targets: []*replay.TargetStats{newStats(primaryName), newStats(name)}}
		for i, s := range slices {
			addSlice(run.Targets[0], i+1, s, lens[i], true)
			addSlice(run.Targets[1], i+1, s, lens[i], false)
		}
		r.Runs = append(r.Runs, run)
	}
	r.Conditions.Repeat = 1
	if len(r.Runs) > 0 {
		r.Conditions.Repeat = max(r.Runs[0].Rounds, 1)
	}
	r.ComputeVerdicts()
	return r
}

func newStats(name string) *replay.TargetStats {
	return &replay.TargetStats{Name: name, Intended: hdr.New(), Actual: hdr.New(), Lag: hdr.New(),
		Errors: map[string]int64{}, Classes: map[string]*replay.ClassStats{}}
}

// addSlice adds one minute as a round of ts: the primary's side or the
// mirror's (errors, compared reads and mismatches are the mirror's).
func addSlice(ts *replay.TargetStats, round int, s *slice, length time.Duration, primary bool) {
	rs := &replay.RoundStats{Round: round, Elapsed: length, Intended: hdr.New(), Lag: hdr.New(),
		Classes: map[string]*replay.RoundClass{}}
	for fp, lc := range s.classes {
		b := &lc.mirror
		if primary {
			b = &lc.primary
		}
		h := hdr.New()
		b.addTo(h)
		rs.Ops += lc.ops
		rs.Intended.Merge(h)
		rs.Classes[fp] = &replay.RoundClass{Ops: lc.ops, Intended: h}
		cs := ts.Classes[fp]
		if cs == nil {
			cs = &replay.ClassStats{Intended: hdr.New(), Actual: hdr.New()}
			ts.Classes[fp] = cs
		}
		cs.Ops += lc.ops
		cs.Intended.Merge(h)
		cs.Actual.Merge(h)
		if !primary {
			for code, n := range lc.errs {
				if cs.Errors == nil {
					cs.Errors = map[string]int64{}
				}
				cs.Errors[code] += n
				ts.Errors[code] += n
				ts.Unexpected += n
			}
			cs.Compared += lc.compared
			cs.Cross += lc.mism
			ts.Compared += lc.compared
			ts.CrossMismatches += lc.mism
		}
	}
	ts.Ops += rs.Ops
	ts.Elapsed += length
	ts.ScheduleSpan += length
	ts.Intended.Merge(rs.Intended)
	ts.Actual.Merge(rs.Intended)
	ts.Rounds = append(ts.Rounds, rs)
}
