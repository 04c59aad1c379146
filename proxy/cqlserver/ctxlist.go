package cqlserver

// A request's ctx is on up to two lists of its connection at once: the
// registry of waited requests (deadline.go) and the deadlines
// (deadlines.go). Each list threads its requests through its own link,
// which its type parameter names.
const (
	linkWaited = iota
	linkDeadline
	numLinks
)

type ctxLink struct {
	prev, next *requestCtx
	listed     bool
}

// A linkOf names the link a list uses.
type linkOf interface{ index() int }

type (
	waitedLink   struct{}
	deadlineLink struct{}
)

func (waitedLink) index() int   { return linkWaited }
func (deadlineLink) index() int { return linkDeadline }

// ctxList is a doubly linked list of requests through their link L, in
// the order they were added; its zero value is empty. Its owner's lock
// guards it and that link of every request on it.
type ctxList[L linkOf] struct {
	head, tail *requestCtx
}

func (l *ctxList[L]) link(r *requestCtx) *ctxLink {
	var at L
	return &r.links[at.index()]
}

// pushBack adds r, which is not on the list, at its end.
func (l *ctxList[L]) pushBack(r *requestCtx) {
	*l.link(r) = ctxLink{prev: l.tail, listed: true}
	if l.tail != nil {
		l.link(l.tail).next = r
	} else {
		l.head = r
	}
	l.tail = r
}

// remove takes r off the list; false when it was not on it.
func (l *ctxList[L]) remove(r *requestCtx) bool {
	k := l.link(r)
	if !k.listed {
		return false
	}
	if k.prev != nil {
		l.link(k.prev).next = k.next
	} else {
		l.head = k.next
	}
	if k.next != nil {
		l.link(k.next).prev = k.prev
	} else {
		l.tail = k.prev
	}
	*k = ctxLink{}
	return true
}

// next is the request after r on the list.
func (l *ctxList[L]) next(r *requestCtx) *requestCtx { return l.link(r).next }

// takeAll empties the list and returns what was on it, in order.
func (l *ctxList[L]) takeAll() []*requestCtx {
	var all []*requestCtx
	for r := l.head; r != nil; {
		after := l.next(r)
		*l.link(r) = ctxLink{}
		all = append(all, r)
		r = after
	}
	l.head, l.tail = nil, nil
	return all
}
