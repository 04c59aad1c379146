package deptest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeLayout checks README's layout table against the tree: every
// path it names exists (a row's sub-paths are under its first path), and
// every top-level directory holding Go packages has a row.
func TestReadmeLayout(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README has no Layout section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	code := regexp.MustCompile("`([a-z0-9_./-]+/)`")
	var tops []string
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "path" {
			continue
		}
		rows++
		firsts := code.FindAllStringSubmatch(cells[1], -1)
		if len(firsts) == 0 {
			t.Errorf("row %q names no path", line)
			continue
		}
		for _, m := range firsts {
			top, _, _ := strings.Cut(m[1], "/")
			tops = append(tops, top)
			if fi, err := os.Stat(filepath.Join("../..", m[1])); err != nil || !fi.IsDir() {
				t.Errorf("README layout names %s, which is not a directory", m[1])
			}
		}
		base := firsts[0][1]
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			p := m[1]
			if strings.Count(p, "/") > 1 && strings.HasPrefix(p, base) {
				p = strings.TrimPrefix(p, base)
			}
			if !dirUnder("../..", base, p) {
				t.Errorf("README layout row %s names %s, found neither under it nor at the top", base, m[1])
			}
		}
	}
	if rows < 5 {
		t.Fatalf("read %d rows of the layout table", rows)
	}
	for _, p := range Packages(t, "../..") {
		top, _, _ := strings.Cut(strings.TrimPrefix(p, mod), "/")
		if !strings.HasPrefix(p, mod) || top == "third_party" {
			continue
		}
		if !slices.Contains(tops, top) {
			tops = append(tops, top) // once
			t.Errorf("top-level %s/ holds Go packages but has no row in README's layout table", top)
		}
	}
}

// dirUnder reports whether p names a directory under base (possibly
// nested: "kv/" for engine's "kvtest/") or at the top of root.
func dirUnder(root, base, p string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Join(root, base), func(path string, d os.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if d.IsDir() && strings.HasSuffix(filepath.ToSlash(path)+"/", "/"+p) {
			found = true
			return filepath.SkipDir
		}
		return nil
	})
	if found {
		return true
	}
	fi, err := os.Stat(filepath.Join(root, p))
	return err == nil && fi.IsDir()
}
