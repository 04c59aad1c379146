package engine

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// TestCQLSupportRefusals runs every statement that docs/CQL-SUPPORT.md lists
// as refused by the wide-column engine (the block between the
// refused-examples markers, read from the page itself so that the page
// cannot drift) and checks that each is answered Invalid, marked
// unsupported, with a message naming dohyo — not a parse error and not a
// result.
func TestCQLSupportRefusals(t *testing.T) {
	page, err := os.ReadFile("../docs/CQL-SUPPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- refused-examples -->\\s*```cql\\n(.*?)```\\s*<!-- /refused-examples -->").FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/CQL-SUPPORT.md has no refused-examples block")
	}
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v text, m map<text, int>, l list<int>, PRIMARY KEY (k, c))")
	n := 0
	for _, q := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		n++
		_, err := h.run(q)
		var be *bindings.Error
		switch {
		case err == nil:
			t.Errorf("%s: succeeded, the page says it is refused", q)
		case !errors.As(err, &be) || be.Code != bindings.CodeInvalid:
			t.Errorf("%s: %v, want an Invalid error", q, err)
		case !errors.Is(err, bindings.ErrUnsupported) || !strings.Contains(be.Message, "dohyo"):
			t.Errorf("%s: %q does not say that dohyo does not support it", q, be.Message)
		}
	}
	if n < 5 { // a guard against a block the regexp no longer reads whole
		t.Fatalf("only %d refused examples read from the page", n)
	}
}
