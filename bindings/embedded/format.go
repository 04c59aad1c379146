package embedded

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Format is how a store lays user rows out in Pebble. It is fixed when the
// store is created and recorded in it (as the name of its merge operator).
type Format uint8

const (
	// FormatDefault opens an existing store in its own format and creates
	// a new one in FormatRows.
	FormatDefault Format = iota
	// FormatCells keeps each cell under its own Pebble key (the layout of
	// stores created before FormatRows existed): a row read is an iterator
	// over the row's cells.
	FormatCells
	// FormatRows keeps each row under one Pebble key (see rows.go): a point
	// read is one Get, a point write one Merge.
	FormatRows
)

// String names the format as DescribeServer reports it.
func (f Format) String() string {
	switch f {
	case FormatCells:
		return "cells (one Pebble key per cell)"
	case FormatRows:
		return "rows (one Pebble key per row)"
	}
	return "default"
}

func (f Format) merger() *pebble.Merger {
	if f == FormatRows {
		return newRowMerger()
	}
	return newMerger()
}

// storeFormat decides the format of the store in dir: the one it was
// created with if it exists (an explicit want that differs is an error,
// not a conversion), else want, FormatRows by default.
func storeFormat(fsys vfs.FS, dir string, want Format) (Format, error) {
	have, err := existingFormat(fsys, dir)
	if err != nil {
		return 0, err
	}
	switch {
	case have == FormatDefault && want == FormatDefault:
		return FormatRows, nil
	case have == FormatDefault:
		return want, nil
	case want != FormatDefault && want != have:
		return 0, fmt.Errorf("embedded: data directory %s holds a store in the %s format, not %s "+
			"(a store keeps the format it was created with)", dir, have, want)
	}
	return have, nil
}

// existingFormat reads the merge operator's name from the newest OPTIONS
// file of the store in dir; FormatDefault when there is no store yet.
func existingFormat(fsys vfs.FS, dir string) (Format, error) {
	desc, err := pebble.Peek(dir, fsys)
	if errors.Is(err, fs.ErrNotExist) {
		return FormatDefault, nil
	}
	if err != nil {
		return 0, fmt.Errorf("embedded: inspect data directory %s: %w", dir, err)
	}
	switch {
	case !desc.Exists:
		return FormatDefault, nil
	case desc.OptionsFilename == "":
		// Pebble writes an OPTIONS file when it creates a store, so every
		// store of the rows layout has one; one without can only predate
		// it (or have lost the file).
		return FormatCells, nil
	}
	f, err := fsys.Open(desc.OptionsFilename)
	if err != nil {
		return 0, fmt.Errorf("embedded: read %s: %w", desc.OptionsFilename, err)
	}
	defer f.Close()
	name, err := optionsMerger(bufio.NewScanner(f))
	if err != nil {
		return 0, fmt.Errorf("embedded: read %s: %w", desc.OptionsFilename, err)
	}
	switch name {
	case MergerName:
		return FormatCells, nil
	case rowsMergerName:
		return FormatRows, nil
	}
	return 0, fmt.Errorf("embedded: data directory %s was written with merge operator %q, "+
		"which this build of dohyo does not know (written by a newer or a foreign program?)", dir, name)
}

// optionsMerger returns the merger= value of the [Options] section of a
// Pebble OPTIONS file.
func optionsMerger(sc *bufio.Scanner) (string, error) {
	var section string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && section == "Options" && strings.TrimSpace(k) == "merger" {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no merger in its [Options] section")
}
