package readme

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// block is one marked fenced block of README.md.
type block struct {
	name string
	lang string // the fence's info string: sh, sql, text
	text string
	line int // line of the opening fence
}

var marker = regexp.MustCompile(`^<!-- readme-test: ([a-z0-9-]+) -->\s*$`)

// readBlocks returns README.md's marked blocks by name. A marker must be
// followed at once by a fenced block; names are unique.
func readBlocks(path string) (map[string]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	blocks := map[string]block{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		m := marker.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name := m[1]
		if _, dup := blocks[name]; dup {
			return nil, fmt.Errorf("%s:%d: block %q marked twice", path, n, name)
		}
		if !sc.Scan() {
			return nil, fmt.Errorf("%s:%d: marker %q at the end of the file", path, n, name)
		}
		n++
		open := sc.Text()
		if !strings.HasPrefix(open, "```") {
			return nil, fmt.Errorf("%s:%d: marker %q is not followed by a fenced block", path, n, name)
		}
		b := block{name: name, lang: strings.TrimPrefix(open, "```"), line: n}
		var body []string
		closed := false
		for sc.Scan() {
			n++
			if sc.Text() == "```" {
				closed = true
				break
			}
			body = append(body, sc.Text())
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: block %q is not closed", path, b.line, name)
		}
		b.text = strings.Join(body, "\n") + "\n"
		blocks[name] = b
	}
	return blocks, sc.Err()
}

// substitute replaces each old string with its new one; every old string
// must occur in text (a README that no longer says it must fail the test,
// not be run unchanged).
func substitute(t *testing.T, b block, pairs ...string) string {
	t.Helper()
	s := b.text
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("README block %q (line %d) no longer contains %q:\n%s", b.name, b.line, pairs[i], b.text)
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// freshCopy copies the repository's files (tracked and untracked, not
// ignored: what a clone plus the change under test has) into a new
// directory, without .git, the caches and build outputs.
func freshCopy(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestReadBlocks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "R.md")
	md := "text\n<!-- readme-test: one -->\n```sh\necho a\necho b\n```\n```sh\nnot marked\n```\n<!-- readme-test: two -->\n```sql\nSELECT 1;\n```\n"
	if err := os.WriteFile(path, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readBlocks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["one"].text != "echo a\necho b\n" || got["one"].lang != "sh" ||
		got["two"].text != "SELECT 1;\n" || got["two"].lang != "sql" || got["one"].line != 3 {
		t.Fatalf("blocks = %+v", got)
	}
	for _, bad := range []string{
		"<!-- readme-test: x -->\ntext\n",
		"<!-- readme-test: x -->\n```sh\nopen\n",
		"<!-- readme-test: x -->\n```sh\n```\n<!-- readme-test: x -->\n```sh\n```\n",
	} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readBlocks(path); err == nil {
			t.Errorf("readBlocks(%q) accepted it", bad)
		}
	}
}
