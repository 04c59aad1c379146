package cqlserver

import (
	"slices"
	"testing"
)

// TestCtxList: requests leave a list from its head, middle and tail and
// the rest stay in order; a request is on both lists at once without one
// list touching the other's links.
func TestCtxList(t *testing.T) {
	rs := make([]*requestCtx, 5)
	for i := range rs {
		rs[i] = &requestCtx{}
	}
	var a ctxList[waitedLink]
	var b ctxList[deadlineLink]
	for _, r := range rs {
		a.pushBack(r)
	}
	b.pushBack(rs[2])
	order := func(l interface {
		next(*requestCtx) *requestCtx
	}, head *requestCtx) []int {
		var got []int
		for r := head; r != nil; r = l.next(r) {
			got = append(got, slices.Index(rs, r))
		}
		return got
	}
	for _, i := range []int{2, 0, 4} {
		if !a.remove(rs[i]) {
			t.Fatalf("remove %d = false", i)
		}
	}
	if a.remove(rs[2]) {
		t.Error("a second remove = true")
	}
	if got := order(&a, a.head); !slices.Equal(got, []int{1, 3}) || a.tail != rs[3] {
		t.Errorf("left %v (tail %p), want [1 3]", got, a.tail)
	}
	if got := order(&b, b.head); !slices.Equal(got, []int{2}) {
		t.Errorf("the other list: %v, want [2]", got)
	}
	if all := a.takeAll(); len(all) != 2 || all[0] != rs[1] || all[1] != rs[3] || a.head != nil || a.tail != nil {
		t.Errorf("takeAll = %v, list left %p..%p", all, a.head, a.tail)
	}
	if !b.remove(rs[2]) || b.head != nil || b.tail != nil {
		t.Error("the other list's request was not left on it alone")
	}
}
