package embedded

import (
	"bytes"
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
)

var _ kv.CondKV = (*Store)(nil)

// CellGet reads a coordination cell; a missing cell is nil, nil.
func (s *Store) CellGet(ctx context.Context, key []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	return s.cellGet(key)
}

func (s *Store) cellGet(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(coordKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr("get cell", err)
	}
	defer closer.Close()
	return bytes.Clone(v), nil
}

// CellSwap writes value if the cell holds expected (nil: missing). The store
// belongs to one process (Pebble locks its directory), so a mutex makes the
// read and the write one step. Cells are written like data (Apply's
// durability): the write-ahead log keeps them in order with the mutations
// they guard.
func (s *Store) CellSwap(ctx context.Context, key, expected, value []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if len(value) == 0 {
		return false, errors.New("embedded: swap cell: empty value")
	}
	if err := s.acquire(); err != nil {
		return false, err
	}
	defer s.release()
	s.cellMu.Lock()
	defer s.cellMu.Unlock()
	cur, err := s.cellGet(key)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(cur, expected) || (cur == nil) != (len(expected) == 0) {
		return false, nil
	}
	return true, wrapErr("swap cell", s.db.Set(coordKey(key), value, s.wopts))
}
