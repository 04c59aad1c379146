package java

import (
	"strings"
)

// parser is a recursive-descent parser of a UDF body (a method body's
// statements). Errors are returned by panicking with a *CompileError
// recovered in parseBody, which keeps the descent free of checks.
type parser struct {
	toks   []token
	pos    int
	scopes []map[string]int
	slots  int
	depth  int
	loops  int
	types  []jtype // declared type per slot
}

const maxDepth = 200

type parseBail struct{ err *CompileError }

func (p *parser) tok() token { return p.toks[p.pos] }

func (p *parser) peek(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isOp(op string) bool { t := p.tok(); return t.kind == tOp && t.text == op }

func (p *parser) isWord(w string) bool { t := p.tok(); return t.kind == tIdent && t.text == w }

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) fail(err *CompileError) { panic(parseBail{err}) }

func (p *parser) syntax(format string, args ...any) {
	p.fail(compileErrf(p.tok().line, format, args...))
}

func (p *parser) unsupported(what string) { p.fail(unsupportedErr(p.tok().line, what)) }

func (p *parser) expectOp(op string) {
	if !p.acceptOp(op) {
		p.syntax("Syntax error on token \"%s\", %s expected", p.tok().text, op)
	}
}

func (p *parser) ident() string {
	t := p.tok()
	if t.kind != tIdent || javaKeywords[t.text] {
		p.syntax("Syntax error on token \"%s\", Identifier expected", t.text)
	}
	p.next()
	return t.text
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.syntax("the function body is nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// ---- scopes ----

func (p *parser) push() { p.scopes = append(p.scopes, map[string]int{}) }
func (p *parser) pop()  { p.scopes = p.scopes[:len(p.scopes)-1] }

func (p *parser) lookup(name string) (int, bool) {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if s, ok := p.scopes[i][name]; ok {
			return s, true
		}
	}
	return 0, false
}

func (p *parser) declare(name string, line int) int {
	return p.declareT(name, line, jtype{k: kAny, ref: true})
}

func (p *parser) declareT(name string, line int, t jtype) int {
	if _, ok := p.lookup(name); ok {
		p.fail(compileErrf(line, "Duplicate local variable %s", name))
	}
	s := p.slots
	p.slots++
	p.types = append(p.types, t)
	p.scopes[len(p.scopes)-1][name] = s
	return s
}

// javaKeywords are Java's reserved words: none is a variable name.
var javaKeywords = map[string]bool{}

// refusedKeywords name the statements and expressions outside the subset.
var refusedKeywords = map[string]string{
	"try": "try/catch", "catch": "try/catch", "finally": "try/finally", "throw": "throw",
	"switch": "switch", "case": "switch", "default": "switch", "class": "a class declaration",
	"interface": "an interface declaration", "enum": "an enum declaration", "synchronized": "synchronized",
	"assert": "assert", "instanceof": "instanceof", "this": "this", "super": "super", "import": "import",
	"goto": "goto", "native": "native", "static": "static", "yield": "yield", "record": "a record declaration",
	"private": "a modifier", "public": "a modifier", "protected": "a modifier", "abstract": "a modifier",
	"transient": "a modifier", "volatile": "a modifier", "strictfp": "a modifier",
	"package": "package", "throws": "throws", "extends": "extends", "implements": "implements",
}

func init() {
	for _, w := range strings.Fields("abstract assert boolean break byte case catch char class const continue default do " +
		"double else enum extends final finally float for goto if implements import instanceof int interface long " +
		"native new package private protected public return short static strictfp super switch synchronized this " +
		"throw throws transient try void volatile while true false null") {
		javaKeywords[w] = true
	}
}

// ---- statements ----

func (p *parser) block() *blockStmt {
	p.expectOp("{")
	p.push()
	defer p.pop()
	b := &blockStmt{}
	for !p.isOp("}") {
		if p.tok().kind == tEOF {
			p.syntax("Syntax error, insert \"}\" to complete Block")
		}
		b.list = append(b.list, p.statement())
	}
	p.next()
	return b
}

func (p *parser) statement() stmt {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind == tOp {
		switch t.text {
		case "{":
			return p.block()
		case ";":
			p.next()
			return &blockStmt{}
		case "@":
			p.unsupported("an annotation")
		}
	}
	if t.kind == tIdent {
		if what, ok := refusedKeywords[t.text]; ok {
			p.unsupported(what)
		}
		switch t.text {
		case "if":
			p.next()
			s := &ifStmt{cond: p.parenExpr()}
			s.then = p.scopedStatement()
			if p.isWord("else") {
				p.next()
				s.els = p.scopedStatement()
			}
			return s
		case "while":
			p.next()
			s := &whileStmt{cond: p.parenExpr()}
			s.body = p.loopBody()
			return s
		case "do":
			p.next()
			s := &whileStmt{do: true}
			s.body = p.loopBody()
			if !p.isWord("while") {
				p.syntax("Syntax error, insert \"while ( Expression ) ;\" to complete DoStatement")
			}
			p.next()
			s.cond = p.parenExpr()
			p.expectOp(";")
			return s
		case "for":
			return p.forStatement()
		case "break", "continue":
			p.next()
			if p.tok().kind == tIdent {
				p.unsupported("a labelled " + t.text)
			}
			p.expectOp(";")
			if p.loops == 0 {
				p.fail(compileErrf(t.line, "%s cannot be used outside of a loop", t.text))
			}
			if t.text == "break" {
				return breakStmt{}
			}
			return continueStmt{}
		case "return":
			p.next()
			s := &returnStmt{line: t.line}
			if !p.isOp(";") {
				s.e = p.expression()
			}
			p.expectOp(";")
			return s
		case "else":
			p.syntax("Syntax error on token \"else\", delete this token")
		}
		if ty, ok := p.declType(); ok {
			d := p.declaration(ty)
			p.expectOp(";")
			return d
		}
		if p.peek(1).kind == tOp && p.peek(1).text == ":" {
			p.unsupported("a labelled statement")
		}
	}
	e := p.expression()
	switch e.(type) {
	case *assignExpr, *incDecExpr, *callExpr, *newExpr:
	default:
		p.syntax("Syntax error, insert \"AssignmentOperator Expression\" to complete Expression")
	}
	p.expectOp(";")
	return &exprStmt{e: e}
}

// scopedStatement parses the body of an if/else: a declaration there is
// its own scope.
func (p *parser) scopedStatement() stmt {
	p.push()
	defer p.pop()
	return p.statement()
}

func (p *parser) loopBody() stmt {
	p.loops++
	defer func() { p.loops-- }()
	return p.scopedStatement()
}

func (p *parser) parenExpr() expr {
	p.expectOp("(")
	e := p.expression()
	p.expectOp(")")
	return e
}

func (p *parser) forStatement() stmt {
	line := p.next().line
	p.expectOp("(")
	p.push()
	defer p.pop()
	if ty, ok := p.declType(); ok && p.peek(1).kind == tOp && p.peek(1).text == ":" {
		name := p.ident()
		p.next()
		coll := p.expression()
		p.expectOp(")")
		s := &forEachStmt{t: ty, coll: coll, line: line}
		s.slot = p.declareT(name, line, ty)
		s.body = p.loopBody()
		return s
	} else if ok {
		s := &forStmt{init: []stmt{p.declaration(ty)}}
		return p.forRest(s)
	}
	s := &forStmt{}
	for !p.isOp(";") {
		s.init = append(s.init, &exprStmt{e: p.expression()})
		if !p.acceptOp(",") {
			break
		}
	}
	return p.forRest(s)
}

func (p *parser) forRest(s *forStmt) stmt {
	p.expectOp(";")
	if !p.isOp(";") {
		s.cond = p.expression()
	}
	p.expectOp(";")
	for !p.isOp(")") {
		s.update = append(s.update, p.expression())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	s.body = p.loopBody()
	return s
}

// declaration parses name [= init] (, name [= init])* after its type.
func (p *parser) declaration(t jtype) *declStmt {
	d := &declStmt{t: t, line: p.tok().line}
	for {
		line := p.tok().line
		name := p.ident()
		if p.isOp("[") {
			p.unsupported("an array")
		}
		var init expr
		if p.acceptOp("=") {
			if p.isOp("{") {
				p.unsupported("an array initializer")
			}
			init = p.expression()
		} else if t.k == kAny && !t.ref {
			p.fail(compileErrf(line, "Cannot use 'var' on variable without initializer"))
		}
		d.slots = append(d.slots, p.declareT(name, line, t))
		d.inits = append(d.inits, init)
		if !p.acceptOp(",") {
			return d
		}
	}
}

// declType recognises a local variable declaration's type at the current
// token (consuming it when it is one).
func (p *parser) declType() (jtype, bool) {
	start := p.pos
	for p.isWord("final") {
		p.next()
	}
	t := p.tok()
	if t.kind != tIdent {
		p.pos = start
		return jtype{}, false
	}
	if k, ok := primitiveNames[t.text]; ok {
		p.next()
		if p.isOp("[") {
			p.unsupported("an array")
		}
		return jtype{k: k}, true
	}
	if t.text == "var" && p.peek(1).kind == tIdent {
		p.next()
		return jtype{k: kAny}, true
	}
	if _, isLocal := p.lookup(t.text); isLocal || javaKeywords[t.text] {
		p.pos = start
		return jtype{}, false
	}
	// Type Ident, Type<...> Ident, a.b.Type Ident, Type[] Ident
	save := p.pos
	name := p.qualifiedTypeName()
	if p.isOp("<") || p.isOp("[") || p.tok().kind == tIdent {
		if p.isOp("<") && !p.skipTypeArgs() {
			p.pos = start
			return jtype{}, false
		}
		if p.isOp("[") {
			p.unsupported("an array")
		}
		if p.tok().kind != tIdent {
			p.pos = start
			return jtype{}, false
		}
		return p.classType(name), true
	}
	_ = save
	p.pos = start
	return jtype{}, false
}

func (p *parser) qualifiedTypeName() string {
	name := p.next().text
	for p.isOp(".") && p.peek(1).kind == tIdent {
		p.next()
		name += "." + p.next().text
	}
	return name
}

// classType maps a declared class name to its type, refusing unknown ones.
func (p *parser) classType(name string) jtype {
	n := stripPackage(name)
	n = strings.TrimPrefix(n, "Map.")
	k, ok := classNames[n]
	if !ok {
		p.unsupported("the type " + name)
	}
	return jtype{k: k, ref: true}
}

// skipTypeArgs skips <...> type arguments (splitting >> and >>>); false
// when what follows '<' is not a type argument list.
func (p *parser) skipTypeArgs() bool {
	depth := 0
	for {
		t := p.tok()
		if t.kind == tEOF {
			return false
		}
		if t.kind == tOp {
			switch t.text {
			case "<":
				depth++
			case ">":
				depth--
			case ">>":
				depth -= 2
			case ">>>":
				depth -= 3
			case ",", ".", "?":
			case "[", "]":
				p.unsupported("an array")
			default:
				return false
			}
		} else if t.kind != tIdent {
			return false
		}
		p.next()
		if depth <= 0 {
			return depth == 0
		}
	}
}
