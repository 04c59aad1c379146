package widecolumn

import (
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

func TestHeldByFindsValuesInTheContext(t *testing.T) {
	x := &execCtx{}
	x.keys = append(x.keyBuf[:0], "partition"...)
	own := []byte("elsewhere")
	cases := []struct {
		name string
		res  *bindings.Result
		want bool
	}{
		{"nil result", nil, false},
		{"values elsewhere", &bindings.Result{Rows: [][][]byte{{own, nil, {}}}}, false},
		{"a value in the key arena", &bindings.Result{Rows: [][][]byte{{own}, {x.keys[2:5]}}}, true},
		{"the key buffer's last byte", &bindings.Result{Rows: [][][]byte{{x.keyBuf[len(x.keyBuf)-1:]}}}, true},
		{"paging state in the key arena", &bindings.Result{PagingState: x.keys}, true},
		{"an empty slice of the arena", &bindings.Result{Rows: [][][]byte{{x.keyBuf[:0:0]}}}, false},
	}
	for _, c := range cases {
		if got := x.heldBy(c.res); got != c.want {
			t.Errorf("%s: heldBy = %v, want %v", c.name, got, c.want)
		}
	}
}
