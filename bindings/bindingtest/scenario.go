package bindingtest

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Scenario is one named sequence of statements with expectations, run in a
// fresh keyspace. See README.md for the file format.
type Scenario struct {
	Name  string
	Area  string   // the file's base name without ".cql" ("ddl", "lwt", ...)
	Tags  []string // explicit tags from the header line
	File  string   // path as given to Load
	Line  int      // line of the "===" header
	Steps []*Step
}

// HasTag reports whether the scenario carries tag (the area counts as a tag).
func (s *Scenario) HasTag(tag string) bool {
	if s.Area == tag {
		return true
	}
	for _, t := range s.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Step is one statement (or protocol batch) and its expectation.
type Step struct {
	Line  int    // line of the ">" statement
	Query string // statement text after directives; "" for @batch

	// Directives.
	Bind        *BindValues   // @bind: prepare, then execute with these values
	PageSize    int32         // @page N
	Unordered   bool          // @unordered
	Eventually  time.Duration // @eventually D
	PrepareOnly bool          // @prepare: prepare only and check metadata
	Timestamp   *int64        // @timestamp T: protocol-level default timestamp
	NoKeyspace  bool          // @nokeyspace: run without a session keyspace
	Batch       *BatchStep    // @batch TYPE: a protocol BATCH message

	Expect Expectation
}

// BindValues are the values of a @bind directive: positional, or named when
// Names is non-nil. A nil Cell in Values stands for the keyword unset.
type BindValues struct {
	Names  []string
	Values []*Cell
	Unset  []bool
}

// BatchStep is a protocol-level BATCH: one child per continuation line.
type BatchStep struct {
	Type     string // LOGGED, UNLOGGED or COUNTER
	Children []BatchChild
}

// BatchChild is one statement of a @batch step.
type BatchChild struct {
	Query string
	Bind  *BindValues
}

// ExpectKind tells the forms of an expectation apart.
type ExpectKind int

// Expectation kinds.
const (
	ExpectSuccess  ExpectKind = iota // no expectation written: must succeed
	ExpectRows                       // header (+ rows) or "(0 rows)"
	ExpectError                      // "! Code[: substring]"
	ExpectVoid                       // "(void)"
	ExpectSchema                     // "(schema CREATED TABLE ks.t)"
	ExpectKeyspace                   // "(keyspace ks)"
	ExpectPrepared                   // "bind:", "result:", "pk:" lines after @prepare
)

// Expectation is what a step must produce.
type Expectation struct {
	Kind ExpectKind

	// ExpectRows. Header is nil for "(0 rows)" written without a header.
	Header []string
	Rows   [][]*Cell

	// ExpectError.
	Code      bindings.ErrorCode
	Substring string

	// ExpectSchema: change type, target, keyspace and object ("" for keyspaces).
	Change, Target, Keyspace, Object string

	// ExpectPrepared: nil slices are not checked.
	BindSpecs   []SpecWant
	ResultSpecs []SpecWant
	PKIndexes   []uint16
	CheckPK     bool

	// Warnings are the client warnings the result must carry, in order,
	// each given by a substring ("warn: text" lines; "warn: -" for none).
	// nil: not checked.
	Warnings []string
}

// SpecWant is one expected bind variable or result column of a prepared
// statement: its name and its CQL type as cql.Type.String spells it.
type SpecWant struct {
	Name string
	Type string
}

// Cell is one expected value: a CQL literal, "null" or "~" (any non-null).
type Cell struct {
	Text string // as written
	Any  bool   // "~"
	Null bool   // "null"

	term cql.Term // parsed literal, set by Load
}

// Load parses every *.cql file in dir, sorted by name.
func Load(dir string) ([]Scenario, error) {
	scs, err := loadFS(os.DirFS(dir), dir)
	return values(scs), err
}

func values(scs []*Scenario) []Scenario {
	if scs == nil {
		return nil
	}
	out := make([]Scenario, len(scs))
	for i, s := range scs {
		out[i] = *s
	}
	return out
}

// loadFS parses every *.cql file at the root of fsys; prefix is prepended to
// file names in scenarios and error messages.
func loadFS(fsys fs.FS, prefix string) ([]*Scenario, error) {
	names, err := fs.Glob(fsys, "*.cql")
	if err != nil {
		return nil, fmt.Errorf("bindingtest: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("bindingtest: no *.cql files in %s", prefix)
	}
	sort.Strings(names)
	var all []*Scenario
	seen := map[string]string{}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("bindingtest: %w", err)
		}
		file := path.Join(prefix, n)
		if prefix != "" {
			file = strings.TrimSuffix(prefix, "/") + "/" + n
		}
		scs, err := ParseFile(file, string(data))
		if err != nil {
			return nil, err
		}
		for _, s := range scs {
			if err := compileCells(s); err != nil {
				return nil, err
			}
			if where, dup := seen[s.Name]; dup {
				return nil, fmt.Errorf("%s:%d: duplicate scenario name %q (first at %s)", s.File, s.Line, s.Name, where)
			}
			seen[s.Name] = fmt.Sprintf("%s:%d", s.File, s.Line)
		}
		all = append(all, scs...)
	}
	return all, nil
}

// ParseFile parses one scenario file's content. file names it in errors and
// determines the scenarios' Area.
func ParseFile(file, content string) ([]*Scenario, error) {
	p := &parser{file: file, area: strings.TrimSuffix(path.Base(file), ".cql")}
	sc := bufio.NewScanner(strings.NewReader(content))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		p.line++
		if err := p.feed(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := p.finishScenario(); err != nil {
		return nil, err
	}
	return p.out, nil
}

type parser struct {
	file string
	area string
	line int

	out  []*Scenario
	cur  *Scenario
	step *Step
	// stmtLines accumulates the current statement; continuation lines are
	// allowed until the first expectation line.
	stmtLines []string
	stmtOpen  bool
	expLines  []expLine
}

type expLine struct {
	n    int
	text string
}

func (p *parser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
}

func (p *parser) feed(raw string) error {
	line := strings.TrimRight(raw, " \t\r")
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		// Blank lines and comments end statement continuation.
		p.stmtOpen = false
		return nil
	case strings.HasPrefix(line, "==="):
		if err := p.finishScenario(); err != nil {
			return err
		}
		return p.startScenario(strings.TrimSpace(strings.TrimPrefix(line, "===")))
	case strings.HasPrefix(line, ">"):
		if p.cur == nil {
			return p.errf(p.line, "statement outside a scenario")
		}
		if err := p.finishStep(); err != nil {
			return err
		}
		p.step = &Step{Line: p.line}
		p.stmtLines = []string{strings.TrimSpace(strings.TrimPrefix(line, ">"))}
		p.stmtOpen = true
		return nil
	case (line[0] == ' ' || line[0] == '\t') && p.stmtOpen:
		p.stmtLines = append(p.stmtLines, trimmed)
		return nil
	default:
		if p.step == nil {
			return p.errf(p.line, "expectation without a statement: %q", trimmed)
		}
		p.stmtOpen = false
		p.expLines = append(p.expLines, expLine{p.line, trimmed})
		return nil
	}
}

func (p *parser) startScenario(header string) error {
	name, tags := header, []string(nil)
	if i := strings.IndexByte(header, '['); i >= 0 {
		if !strings.HasSuffix(header, "]") {
			return p.errf(p.line, "bad tag list in %q", header)
		}
		name = strings.TrimSpace(header[:i])
		for _, t := range strings.Split(header[i+1:len(header)-1], ",") {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
	}
	if name == "" {
		return p.errf(p.line, "scenario without a name")
	}
	if strings.ContainsAny(name, "/\t") {
		return p.errf(p.line, "scenario name %q must not contain '/' or tabs", name)
	}
	p.cur = &Scenario{Name: name, Area: p.area, Tags: tags, File: p.file, Line: p.line}
	return nil
}

func (p *parser) finishScenario() error {
	if p.cur == nil {
		return nil
	}
	if err := p.finishStep(); err != nil {
		return err
	}
	if len(p.cur.Steps) == 0 {
		return p.errf(p.cur.Line, "scenario %q has no statements", p.cur.Name)
	}
	p.out = append(p.out, p.cur)
	p.cur = nil
	return nil
}

func (p *parser) finishStep() error {
	st := p.step
	if st == nil {
		return nil
	}
	p.step = nil
	lines, exp := p.stmtLines, p.expLines
	p.stmtLines, p.expLines, p.stmtOpen = nil, nil, false

	rest, err := p.directives(st, lines[0])
	if err != nil {
		return err
	}
	if st.Batch != nil {
		if rest != "" {
			return p.errf(st.Line, "@batch takes its statements on the following indented lines")
		}
		for _, l := range lines[1:] {
			child := BatchChild{Query: l}
			if strings.HasPrefix(l, "@bind") {
				b, q, err := parseBindDirective(strings.TrimSpace(strings.TrimPrefix(l, "@bind")))
				if err != nil {
					return p.errf(st.Line, "%v", err)
				}
				child = BatchChild{Query: q, Bind: b}
			}
			st.Batch.Children = append(st.Batch.Children, child)
		}
		if len(st.Batch.Children) == 0 {
			return p.errf(st.Line, "@batch without statements")
		}
	} else {
		st.Query = strings.Join(append([]string{rest}, lines[1:]...), "\n")
		if strings.TrimSpace(st.Query) == "" {
			return p.errf(st.Line, "empty statement")
		}
	}
	if err := p.expectation(st, exp); err != nil {
		return err
	}
	p.cur.Steps = append(p.cur.Steps, st)
	return nil
}

// directives consumes the leading @directives of a statement line and
// returns the rest.
func (p *parser) directives(st *Step, s string) (string, error) {
	for strings.HasPrefix(s, "@") {
		word, rest, _ := strings.Cut(s, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "@unordered":
			st.Unordered = true
		case "@prepare":
			st.PrepareOnly = true
		case "@nokeyspace":
			st.NoKeyspace = true
		case "@page":
			arg, r, _ := strings.Cut(rest, " ")
			n, err := strconv.Atoi(arg)
			if err != nil || n <= 0 {
				return "", p.errf(st.Line, "@page wants a positive page size, got %q", arg)
			}
			st.PageSize, rest = int32(n), strings.TrimSpace(r)
		case "@eventually":
			arg, r, _ := strings.Cut(rest, " ")
			d, err := time.ParseDuration(arg)
			if err != nil || d <= 0 {
				return "", p.errf(st.Line, "@eventually wants a duration, got %q", arg)
			}
			st.Eventually, rest = d, strings.TrimSpace(r)
		case "@timestamp":
			arg, r, _ := strings.Cut(rest, " ")
			ts, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				return "", p.errf(st.Line, "@timestamp wants an integer, got %q", arg)
			}
			st.Timestamp, rest = &ts, strings.TrimSpace(r)
		case "@batch":
			arg, r, _ := strings.Cut(rest, " ")
			typ := strings.ToUpper(arg)
			if typ != "LOGGED" && typ != "UNLOGGED" && typ != "COUNTER" {
				return "", p.errf(st.Line, "@batch wants LOGGED, UNLOGGED or COUNTER, got %q", arg)
			}
			st.Batch, rest = &BatchStep{Type: typ}, strings.TrimSpace(r)
		case "@bind":
			b, r, err := parseBindDirective(rest)
			if err != nil {
				return "", p.errf(st.Line, "%v", err)
			}
			st.Bind, rest = b, r
		default:
			return "", p.errf(st.Line, "unknown directive %q", word)
		}
		s = rest
	}
	if st.PrepareOnly && (st.Bind != nil || st.PageSize > 0 || st.Batch != nil || st.Eventually > 0) {
		return "", p.errf(st.Line, "@prepare cannot be combined with @bind, @page, @batch or @eventually")
	}
	return s, nil
}

// parseBindDirective parses "(v1, v2, ...) rest" or "{name: v, ...} rest".
func parseBindDirective(s string) (*BindValues, string, error) {
	if s == "" || (s[0] != '(' && s[0] != '{') {
		return nil, "", fmt.Errorf("@bind wants (values) or {name: value, ...}")
	}
	end, err := matchingClose(s)
	if err != nil {
		return nil, "", fmt.Errorf("@bind: %v", err)
	}
	inner, rest := s[1:end], strings.TrimSpace(s[end+1:])
	b := &BindValues{}
	if strings.TrimSpace(inner) == "" {
		return b, rest, nil
	}
	for _, item := range splitTop(inner, ',') {
		item = strings.TrimSpace(item)
		if s[0] == '{' {
			parts := splitTop(item, ':')
			if len(parts) < 2 {
				return nil, "", fmt.Errorf("@bind: named value %q wants name: value", item)
			}
			name := strings.TrimSpace(parts[0])
			if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
				name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
			} else {
				name = strings.ToLower(name)
			}
			b.Names = append(b.Names, name)
			item = strings.TrimSpace(strings.Join(parts[1:], ":"))
		}
		if item == "" {
			return nil, "", fmt.Errorf("@bind: empty value")
		}
		if strings.EqualFold(item, "unset") {
			b.Values = append(b.Values, nil)
			b.Unset = append(b.Unset, true)
			continue
		}
		b.Values = append(b.Values, parseCell(item))
		b.Unset = append(b.Unset, false)
	}
	return b, rest, nil
}

func (p *parser) expectation(st *Step, lines []expLine) error {
	e := &st.Expect
	lines, err := p.warnLines(e, lines)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		if st.PrepareOnly {
			return p.errf(st.Line, "@prepare needs bind:/result:/pk: lines or an error")
		}
		return nil
	}
	first := lines[0]
	switch {
	case strings.HasPrefix(first.text, "!"):
		if len(lines) > 1 {
			return p.errf(lines[1].n, "nothing may follow an error expectation")
		}
		body := strings.TrimSpace(strings.TrimPrefix(first.text, "!"))
		name, sub, _ := strings.Cut(body, ":")
		code, ok := bindings.CodeByName(strings.TrimSpace(name))
		if !ok {
			return p.errf(first.n, "unknown error code %q", strings.TrimSpace(name))
		}
		e.Kind, e.Code, e.Substring = ExpectError, code, strings.TrimSpace(sub)
		return nil
	case st.PrepareOnly:
		return p.preparedExpectation(e, lines)
	case first.text == "(0 rows)":
		if len(lines) > 1 {
			return p.errf(lines[1].n, "nothing may follow (0 rows)")
		}
		e.Kind = ExpectRows
		return nil
	case first.text == "(void)":
		if len(lines) > 1 {
			return p.errf(lines[1].n, "nothing may follow (void)")
		}
		e.Kind = ExpectVoid
		return nil
	case strings.HasPrefix(first.text, "(schema "):
		f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(first.text, "(schema "), ")"))
		if len(f) != 3 || !strings.HasSuffix(first.text, ")") {
			return p.errf(first.n, "want (schema CHANGE TARGET keyspace[.object])")
		}
		e.Kind, e.Change, e.Target = ExpectSchema, f[0], f[1]
		e.Keyspace, e.Object, _ = strings.Cut(f[2], ".")
		if len(lines) > 1 {
			return p.errf(lines[1].n, "nothing may follow a schema expectation")
		}
		return nil
	case strings.HasPrefix(first.text, "(keyspace "):
		if len(lines) > 1 || !strings.HasSuffix(first.text, ")") {
			return p.errf(first.n, "want (keyspace name) alone")
		}
		e.Kind = ExpectKeyspace
		e.Keyspace = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(first.text, "(keyspace "), ")"))
		return nil
	case strings.HasPrefix(first.text, "("):
		return p.errf(first.n, "unknown expectation %q", first.text)
	}
	e.Kind = ExpectRows
	for _, h := range splitTop(first.text, '|') {
		h = strings.TrimSpace(h)
		if h == "" {
			return p.errf(first.n, "empty column name in header")
		}
		e.Header = append(e.Header, h)
	}
	for i, l := range lines[1:] {
		if l.text == "(0 rows)" {
			if i != 0 || len(lines) != 2 {
				return p.errf(l.n, "(0 rows) must be the only line after the header")
			}
			return nil
		}
		cells := splitTop(l.text, '|')
		if len(cells) != len(e.Header) {
			return p.errf(l.n, "row has %d cells, header has %d", len(cells), len(e.Header))
		}
		row := make([]*Cell, len(cells))
		for j, c := range cells {
			c = strings.TrimSpace(c)
			if c == "" {
				return p.errf(l.n, "empty cell %d (write null, '' or ~)", j+1)
			}
			row[j] = parseCell(c)
		}
		e.Rows = append(e.Rows, row)
	}
	if len(e.Rows) == 0 {
		return p.errf(first.n, "a header needs rows or (0 rows) after it")
	}
	return nil
}

// warnLines takes the "warn:" lines out of an expectation into
// e.Warnings.
func (p *parser) warnLines(e *Expectation, lines []expLine) ([]expLine, error) {
	rest := lines[:0:0]
	for _, l := range lines {
		text, ok := strings.CutPrefix(l.text, "warn:")
		if !ok {
			rest = append(rest, l)
			continue
		}
		text = strings.TrimSpace(text)
		switch {
		case text == "":
			return nil, p.errf(l.n, "warn: wants a substring of the warning, or - for none")
		case text == "-":
			if len(e.Warnings) > 0 {
				return nil, p.errf(l.n, "warn: - cannot follow other warn: lines")
			}
			e.Warnings = []string{}
		default:
			e.Warnings = append(e.Warnings, text)
		}
	}
	return rest, nil
}

func (p *parser) preparedExpectation(e *Expectation, lines []expLine) error {
	e.Kind = ExpectPrepared
	for _, l := range lines {
		key, val, ok := strings.Cut(l.text, ":")
		if !ok {
			return p.errf(l.n, "want bind:, result: or pk: after @prepare")
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "bind", "result":
			specs := []SpecWant{}
			if val != "" && val != "-" {
				for _, item := range splitTop(val, ',') {
					sw, err := parseSpecWant(strings.TrimSpace(item))
					if err != nil {
						return p.errf(l.n, "%v", err)
					}
					specs = append(specs, sw)
				}
			}
			if strings.TrimSpace(key) == "bind" {
				e.BindSpecs = specs
			} else {
				e.ResultSpecs = specs
			}
		case "pk":
			e.CheckPK, e.PKIndexes = true, []uint16{}
			if val != "" && val != "-" {
				for _, f := range strings.Split(val, ",") {
					n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
					if err != nil {
						return p.errf(l.n, "bad pk index %q", f)
					}
					e.PKIndexes = append(e.PKIndexes, uint16(n))
				}
			}
		default:
			return p.errf(l.n, "unknown prepared expectation %q", key)
		}
	}
	return nil
}

// parseSpecWant splits "name type" at the last space outside <...>; names
// such as "partition key token" may contain spaces.
func parseSpecWant(s string) (SpecWant, error) {
	depth, cut := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ' ':
			if depth == 0 {
				cut = i
			}
		}
	}
	if cut <= 0 || cut == len(s)-1 {
		return SpecWant{}, fmt.Errorf("want \"name type\", got %q", s)
	}
	return SpecWant{Name: strings.TrimSpace(s[:cut]), Type: normType(s[cut+1:])}, nil
}

// normType drops spaces so "map<text, int>" and "map<text,int>" compare equal.
func normType(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

func parseCell(s string) *Cell {
	switch {
	case s == "~":
		return &Cell{Text: s, Any: true}
	case strings.EqualFold(s, "null"):
		return &Cell{Text: s, Null: true}
	}
	return &Cell{Text: s}
}

// splitTop splits s on sep outside quotes ('...', "...", $$...$$) and
// brackets, so literals such as 'a | b' or {1: 2} stay whole.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j
		case c == '$' && i+1 < len(s) && s[i+1] == '$':
			if j := strings.Index(s[i+2:], "$$"); j >= 0 {
				i += j + 3
			} else {
				i = len(s)
			}
		case c == '(' || c == '[' || c == '{' || (c == '<' && sep == ','):
			depth++
		case c == ')' || c == ']' || c == '}' || (c == '>' && sep == ','):
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// matchingClose returns the index of the bracket closing s[0].
func matchingClose(s string) (int, error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unbalanced brackets in %q", s)
}
