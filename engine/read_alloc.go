package engine

// newCQLRow allocates a row with n column slots and a partition header
// (used or not) in one allocation for tables of up to 16 columns (YCSB's
// usertable has 11): decodeRow ran three (row, columns, header) per row
// read. Wider tables get the three.
func newCQLRow(n int) (*cqlRow, *partHeader) {
	switch {
	case n <= 2:
		return rowIn(func(c *[2]colVal) []colVal { return c[:] }, n)
	case n <= 4:
		return rowIn(func(c *[4]colVal) []colVal { return c[:] }, n)
	case n <= 8:
		return rowIn(func(c *[8]colVal) []colVal { return c[:] }, n)
	case n <= 16:
		return rowIn(func(c *[16]colVal) []colVal { return c[:] }, n)
	}
	return &cqlRow{cols: make([]colVal, n)}, &partHeader{}
}

// rowIn allocates a row, its header and the column array A together; cols
// slices the array (n ≤ its length).
func rowIn[A any](cols func(*A) []colVal, n int) (*cqlRow, *partHeader) {
	a := &struct {
		r cqlRow
		h partHeader
		c A
	}{}
	a.r.cols = cols(&a.c)[:n:n]
	return &a.r, &a.h
}
