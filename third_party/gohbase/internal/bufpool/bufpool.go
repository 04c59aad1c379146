// Copyright (C) 2015  The GoHBase Authors.  All rights reserved.
// This file is part of GoHBase.
// Use of this source code is governed by the Apache License 2.0
// that can be found in the COPYING file.

// Package bufpool keeps byte buffers for reuse (dohyo patch): the region
// client's send buffers and the client's region cache search keys.
package bufpool

import "sync"

// Pool is a pool of byte buffers; its zero value is ready to use.
type Pool struct{ pool sync.Pool }

// Get returns an empty buffer, of capacity size when a new one is made.
func (p *Pool) Get(size int) *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, size)
	return &b
}

// Put keeps b for reuse unless its capacity exceeds max.
func (p *Pool) Put(b *[]byte, max int) {
	if cap(*b) <= max {
		p.pool.Put(b)
	}
}
