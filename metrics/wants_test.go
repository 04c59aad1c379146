package metrics

import (
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

type valuesTap struct{ wants bool }

func (valuesTap) Observe(*bindings.Observation) {}
func (t valuesTap) WantsValues() bool           { return t.wants }

type plainTap struct{}

func (plainTap) Observe(*bindings.Observation) {}

// TestTapWantsValues: the metrics need no bound values; the request tap
// wants them exactly when its next tap does (one without ValuesWanter is
// assumed to).
func TestTapWantsValues(t *testing.T) {
	m, err := New(NewRegistry(), "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		next Tap
		want bool
	}{{nil, false}, {valuesTap{false}, false}, {valuesTap{true}, true}, {plainTap{}, true}} {
		if got := bindings.WantsValues(m.Tap(TapConfig{Next: tc.next})); got != tc.want {
			t.Errorf("next %#v: WantsValues %v, want %v", tc.next, got, tc.want)
		}
	}
}
