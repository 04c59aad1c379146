package widecolumn

// newCQLRow allocates a row with n column slots and a partition header
// (used or not) in one allocation for the narrow tables of point reads:
// decodeRow ran three (row, columns, header) per row read.
func newCQLRow(n int) (*cqlRow, *partHeader) {
	switch {
	case n <= 2:
		a := &struct {
			r cqlRow
			h partHeader
			c [2]colVal
		}{}
		a.r.cols = a.c[:n:n]
		return &a.r, &a.h
	case n <= 4:
		a := &struct {
			r cqlRow
			h partHeader
			c [4]colVal
		}{}
		a.r.cols = a.c[:n:n]
		return &a.r, &a.h
	}
	return &cqlRow{cols: make([]colVal, n)}, &partHeader{}
}
