package bindingtest

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// check compares a step's outcome with its expectation.
func (r *runner) check(st *Step, out outcome) error {
	if err := r.checkOutcome(st, out); err != nil {
		return err
	}
	return r.checkWarnings(&st.Expect, out)
}

// checkWarnings compares a result's client warnings with the "warn:"
// lines: as many, in order, each containing its substring.
func (r *runner) checkWarnings(e *Expectation, out outcome) error {
	if e.Warnings == nil || out.err != nil || out.res == nil {
		return nil
	}
	got := out.res.Warnings
	ok := len(got) == len(e.Warnings)
	for i := 0; ok && i < len(got); i++ {
		ok = strings.Contains(got[i], r.subst(e.Warnings[i]))
	}
	if !ok {
		want := make([]string, len(e.Warnings))
		for i, w := range e.Warnings {
			want[i] = r.subst(w)
		}
		return fmt.Errorf("warnings differ\nwant: %q\ngot:  %q", want, got)
	}
	return nil
}

func (r *runner) checkOutcome(st *Step, out outcome) error {
	e := &st.Expect
	if e.Kind == ExpectError {
		if out.err == nil {
			return fmt.Errorf("want error %s: %q\ngot success: %s", e.Code, r.subst(e.Substring), r.describeOutcome(out))
		}
		got := bindings.AsError(out.err)
		if got.Code != e.Code || !strings.Contains(got.Message, r.subst(e.Substring)) {
			return fmt.Errorf("want error %s containing %q\ngot  error %s: %s", e.Code, r.subst(e.Substring), got.Code, got.Message)
		}
		return nil
	}
	if out.err != nil {
		e := bindings.AsError(out.err)
		return fmt.Errorf("want success, got error %s: %s", e.Code, e.Message)
	}
	if st.PrepareOnly {
		return r.checkPrepared(e, out.prepared)
	}
	res := out.res
	if res == nil {
		return fmt.Errorf("backend returned neither a result nor an error")
	}
	switch e.Kind {
	case ExpectSuccess:
		if isWrite(st) && res.Kind != bindings.ResultVoid {
			return fmt.Errorf("want a void result (write without conditions), got %s", r.describeOutcome(out))
		}
		return nil
	case ExpectVoid:
		if res.Kind != bindings.ResultVoid {
			return fmt.Errorf("want (void), got %s", r.describeOutcome(out))
		}
		return nil
	case ExpectKeyspace:
		if res.Kind != bindings.ResultSetKeyspace || res.Keyspace != r.subst(e.Keyspace) {
			return fmt.Errorf("want (keyspace %s), got %s", r.subst(e.Keyspace), r.describeOutcome(out))
		}
		return nil
	case ExpectSchema:
		c := res.Change
		if res.Kind != bindings.ResultSchemaChange || c == nil ||
			string(c.Type) != e.Change || string(c.Target) != e.Target ||
			c.Keyspace != r.subst(e.Keyspace) || c.Object != e.Object {
			return fmt.Errorf("want (schema %s %s %s), got %s", e.Change, e.Target,
				joinKsObj(r.subst(e.Keyspace), e.Object), r.describeOutcome(out))
		}
		return nil
	case ExpectRows:
		return r.checkRows(st, res)
	}
	return fmt.Errorf("expectation kind %d not checkable here", e.Kind)
}

func joinKsObj(ks, obj string) string {
	if obj == "" {
		return ks
	}
	return ks + "." + obj
}

// isWrite reports whether a step is a DML statement or batch, which must
// return a void result unless it is conditional (then rows are expected).
func isWrite(st *Step) bool {
	if st.Batch != nil {
		return true
	}
	f := strings.Fields(st.Query)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "INSERT", "UPDATE", "DELETE", "BEGIN":
		return true
	}
	return false
}

func (r *runner) checkRows(st *Step, res *bindings.Result) error {
	e := &st.Expect
	if res.Kind != bindings.ResultRows {
		return fmt.Errorf("want rows, got %s", r.describeOutcome(outcome{res: res}))
	}
	names := make([]string, len(res.Columns))
	types := make([]*cql.Type, len(res.Columns))
	for i, c := range res.Columns {
		names[i], types[i] = c.Name, c.Type
	}
	mismatch := func(why string) error {
		return fmt.Errorf("%s\nwant:\n%s\ngot:\n%s", why, r.wantText(e), gotText(names, types, res.Rows))
	}
	if e.Header != nil && !equalStrings(names, e.Header) {
		return mismatch("column names differ")
	}
	for _, row := range res.Rows {
		if len(row) != len(names) {
			return mismatch(fmt.Sprintf("a row has %d cells for %d columns", len(row), len(names)))
		}
	}
	if len(res.Rows) != len(e.Rows) {
		return mismatch(fmt.Sprintf("got %d rows, want %d", len(res.Rows), len(e.Rows)))
	}
	if len(e.Rows) == 0 {
		return nil
	}
	want := make([][][]byte, len(e.Rows))
	for i, row := range e.Rows {
		want[i] = make([][]byte, len(row))
		for j, c := range row {
			if c.Any {
				continue
			}
			if types[j] == nil {
				return fmt.Errorf("result column %q has no type (metadata missing)", names[j])
			}
			b, err := encodeCell(types[j], c, names[j])
			if err != nil {
				return fmt.Errorf("expectation at row %d column %q: %v", i+1, names[j], err)
			}
			if b == nil && !c.Null {
				b = []byte{}
			}
			want[i][j] = b
		}
	}
	matches := func(wi, gi int) bool {
		for j, c := range e.Rows[wi] {
			got := res.Rows[gi][j]
			if c.Any {
				if got == nil {
					return false
				}
				continue
			}
			if !sameValue(types[j], got, want[wi][j]) {
				return false
			}
		}
		return true
	}
	if !st.Unordered {
		for i := range e.Rows {
			if !matches(i, i) {
				return mismatch(fmt.Sprintf("row %d differs", i+1))
			}
		}
		return nil
	}
	if !perfectMatching(len(e.Rows), matches) {
		return mismatch("rows differ (compared unordered)")
	}
	return nil
}

// perfectMatching reports whether every wanted row can be paired with a
// distinct got row (bipartite matching by augmenting paths; "~" cells make
// greedy pairing wrong).
func perfectMatching(n int, ok func(w, g int) bool) bool {
	owner := make([]int, n) // got row -> wanted row, -1 if free
	for i := range owner {
		owner[i] = -1
	}
	var try func(w int, seen []bool) bool
	try = func(w int, seen []bool) bool {
		for g := 0; g < n; g++ {
			if seen[g] || !ok(w, g) {
				continue
			}
			seen[g] = true
			if owner[g] < 0 || try(owner[g], seen) {
				owner[g] = w
				return true
			}
		}
		return false
	}
	for w := 0; w < n; w++ {
		if !try(w, make([]bool, n)) {
			return false
		}
	}
	return true
}

func (r *runner) checkPrepared(e *Expectation, p *bindings.Prepared) error {
	if p == nil {
		return fmt.Errorf("Prepare returned no description")
	}
	cmp := func(what string, want []SpecWant, got []bindings.ColumnSpec) error {
		if want == nil {
			return nil
		}
		g := make([]string, len(got))
		for i, s := range got {
			g[i] = s.Name + " " + normType(s.Type.String())
		}
		w := make([]string, len(want))
		for i, s := range want {
			w[i] = s.Name + " " + s.Type
		}
		if !equalStrings(g, w) {
			return fmt.Errorf("%s metadata differs\nwant: %s\ngot:  %s", what, strings.Join(w, ", "), strings.Join(g, ", "))
		}
		return nil
	}
	if err := cmp("bind", e.BindSpecs, p.Bind); err != nil {
		return err
	}
	if err := cmp("result", e.ResultSpecs, p.Result); err != nil {
		return err
	}
	if e.CheckPK && fmt.Sprint(e.PKIndexes) != fmt.Sprint(append([]uint16{}, p.PKIndexes...)) {
		return fmt.Errorf("pk indexes differ: want %v, got %v", e.PKIndexes, p.PKIndexes)
	}
	return nil
}

func (r *runner) wantText(e *Expectation) string {
	var b strings.Builder
	if e.Header != nil {
		b.WriteString("  " + strings.Join(e.Header, " | ") + "\n")
	}
	if len(e.Rows) == 0 {
		b.WriteString("  (0 rows)\n")
	}
	for _, row := range e.Rows {
		parts := make([]string, len(row))
		for i, c := range row {
			parts[i] = c.Text
		}
		b.WriteString("  " + strings.Join(parts, " | ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func gotText(names []string, types []*cql.Type, rows [][][]byte) string {
	var b strings.Builder
	b.WriteString("  " + strings.Join(names, " | ") + "\n")
	if len(rows) == 0 {
		b.WriteString("  (0 rows)\n")
	}
	for _, row := range rows {
		b.WriteString("  " + formatRow(types, row) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r *runner) describeOutcome(out outcome) string {
	if out.prepared != nil {
		return "a prepared statement"
	}
	res := out.res
	if res == nil {
		return "nothing"
	}
	switch res.Kind {
	case bindings.ResultVoid:
		return "(void)"
	case bindings.ResultSetKeyspace:
		return "(keyspace " + res.Keyspace + ")"
	case bindings.ResultSchemaChange:
		if res.Change == nil {
			return "(schema change without details)"
		}
		return fmt.Sprintf("(schema %s %s %s)", res.Change.Type, res.Change.Target, joinKsObj(res.Change.Keyspace, res.Change.Object))
	case bindings.ResultRows:
		names := make([]string, len(res.Columns))
		types := make([]*cql.Type, len(res.Columns))
		for i, c := range res.Columns {
			names[i], types[i] = c.Name, c.Type
		}
		return "rows:\n" + gotText(names, types, res.Rows)
	}
	return fmt.Sprintf("result kind %d", res.Kind)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
