package java

import "strings"

var binaryPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, ">>>": 8,
	"+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

var compoundOps = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"&=": true, "|=": true, "^=": true, "<<=": true, ">>=": true, ">>>=": true,
}

func (p *parser) expression() expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind == tIdent && p.peek(1).kind == tOp && compoundOps[p.peek(1).text] {
		if slot, ok := p.lookup(t.text); ok {
			p.next()
			op := p.next().text
			a := &assignExpr{slot: slot, op: strings.TrimSuffix(op, "="), line: t.line, rhs: p.expression()}
			if op == "=" {
				a.op = "="
			}
			a.t = p.types[slot]
			return a
		}
		if !javaKeywords[t.text] {
			p.fail(compileErrf(t.line, "%s cannot be resolved to a variable", t.text))
		}
	}
	if t.kind == tIdent && p.peek(1).kind == tOp && p.peek(1).text == "->" {
		p.unsupported("a lambda expression")
	}
	c := p.binary(1)
	if p.acceptOp("?") {
		a := p.expression()
		p.expectOp(":")
		b := p.expression()
		return &condExpr{c: c, a: a, b: b}
	}
	if p.tok().kind == tOp && compoundOps[p.tok().text] {
		p.syntax("The left-hand side of an assignment must be a variable")
	}
	return c
}

func (p *parser) binary(minPrec int) expr {
	x := p.unary()
	for {
		t := p.tok()
		if t.kind == tIdent && t.text == "instanceof" {
			p.unsupported("instanceof")
		}
		prec, ok := binaryPrec[t.text]
		if t.kind != tOp || !ok || prec < minPrec {
			return x
		}
		p.next()
		y := p.binary(prec + 1)
		switch t.text {
		case "&&", "||":
			x = &logicalExpr{and: t.text == "&&", x: x, y: y}
		default:
			x = &binaryExpr{op: t.text, x: x, y: y, line: t.line}
		}
	}
}

func (p *parser) unary() expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind == tOp {
		switch t.text {
		case "++", "--":
			p.next()
			slot := p.assignable()
			d := 1
			if t.text == "--" {
				d = -1
			}
			return &incDecExpr{slot: slot, delta: d, prefix: true, t: p.types[slot], line: t.line}
		case "-":
			p.next()
			if n := p.tok(); (n.kind == tInt && n.ival == 1<<31) || (n.kind == tLong && uint64(n.ival) == 1<<63) {
				p.next()
				if n.kind == tInt {
					return p.postfix(&litExpr{v: int32(-1 << 31)})
				}
				return p.postfix(&litExpr{v: int64(-1 << 63)})
			}
			return &unaryExpr{op: "-", x: p.unary(), line: t.line}
		case "+", "!", "~":
			p.next()
			return &unaryExpr{op: t.text, x: p.unary(), line: t.line}
		case "(":
			if ty, ok := p.castType(); ok {
				return &castExpr{t: ty, x: p.unary(), line: t.line}
			}
		}
	}
	return p.postfix(p.primary())
}

// castType recognises '(' type ')' followed by an operand.
func (p *parser) castType() (jtype, bool) {
	n := p.peek(1)
	if n.kind != tIdent {
		return jtype{}, false
	}
	if k, ok := primitiveNames[n.text]; ok && p.peek(2).text == ")" {
		p.next()
		p.next()
		p.next()
		return jtype{k: k}, true
	}
	if _, local := p.lookup(n.text); local || !(n.text[0] >= 'A' && n.text[0] <= 'Z') {
		return jtype{}, false
	}
	start := p.pos
	p.next()
	name := p.qualifiedTypeName()
	if p.isOp("<") && !p.skipTypeArgs() {
		p.pos = start
		return jtype{}, false
	}
	if !p.isOp(")") {
		p.pos = start
		return jtype{}, false
	}
	after := p.peek(1)
	if !(after.kind == tIdent || after.kind == tString || after.kind == tInt || after.kind == tLong ||
		after.kind == tFloat || after.kind == tDouble || after.kind == tChar ||
		(after.kind == tOp && (after.text == "(" || after.text == "!" || after.text == "~"))) {
		p.pos = start
		return jtype{}, false
	}
	p.next()
	return p.classType(name), true
}

// assignable parses a local variable operand of ++/--.
func (p *parser) assignable() int {
	t := p.tok()
	if t.kind != tIdent {
		p.syntax("Invalid argument to operation ++/--")
	}
	slot, ok := p.lookup(t.text)
	if !ok {
		p.fail(compileErrf(t.line, "%s cannot be resolved to a variable", t.text))
	}
	p.next()
	return slot
}

func (p *parser) postfix(x expr) expr {
	for {
		t := p.tok()
		if t.kind != tOp {
			return x
		}
		switch t.text {
		case ".":
			p.next()
			if p.isOp("<") {
				p.unsupported("explicit method type arguments")
			}
			line := p.tok().line
			name := p.ident()
			if !p.isOp("(") {
				p.fail(unsupportedErr(line, "the field "+name))
			}
			x = p.method(x, "", name, line)
		case "++", "--":
			lx, ok := x.(*localExpr)
			if !ok {
				p.syntax("Invalid argument to operation ++/--")
			}
			p.next()
			d := 1
			if t.text == "--" {
				d = -1
			}
			x = &incDecExpr{slot: lx.slot, delta: d, t: p.types[lx.slot], line: t.line}
		case "[":
			p.unsupported("an array")
		case "::":
			p.unsupported("a method reference")
		default:
			return x
		}
	}
}

func (p *parser) primary() expr {
	t := p.next()
	switch t.kind {
	case tInt:
		if t.ival == 1<<31 {
			p.fail(compileErrf(t.line, "The literal %s of type int is out of range", t.text))
		}
		return &litExpr{v: int32(t.ival)}
	case tLong:
		if uint64(t.ival) == 1<<63 {
			p.fail(compileErrf(t.line, "The literal %s of type long is out of range", t.text))
		}
		return &litExpr{v: t.ival}
	case tFloat:
		return &litExpr{v: float32(t.fval)}
	case tDouble:
		return &litExpr{v: t.fval}
	case tChar:
		return &litExpr{v: jchar(t.ival)}
	case tString:
		return &litExpr{v: t.sval}
	case tOp:
		if t.text == "(" {
			e := p.expression()
			p.expectOp(")")
			return e
		}
		p.fail(compileErrf(t.line, "Syntax error on token \"%s\", invalid expression", t.text))
	case tEOF:
		p.fail(compileErrf(t.line, "Syntax error, insert \";\" to complete BlockStatements"))
	}
	switch t.text {
	case "true":
		return &litExpr{v: true}
	case "false":
		return &litExpr{v: false}
	case "null":
		return &litExpr{v: nil}
	case "new":
		return p.newObject(t.line)
	}
	if what, ok := refusedKeywords[t.text]; ok {
		p.fail(unsupportedErr(t.line, what))
	}
	if slot, ok := p.lookup(t.text); ok {
		return &localExpr{slot: slot, name: t.text}
	}
	if t.text == "udfContext" {
		p.expectOp(".")
		line := p.tok().line
		name := p.ident()
		if !p.isOp("(") {
			p.fail(unsupportedErr(line, "the field udfContext."+name))
		}
		c := p.method(nil, "udfContext", name, line).(*callExpr)
		c.ctxFun = true
		return c
	}
	name := t.text
	for p.isOp(".") && p.peek(1).kind == tIdent && !staticClasses[stripPackage(name)] {
		p.next()
		name += "." + p.next().text
	}
	class := stripPackage(name)
	if staticClasses[class] {
		p.expectOp(".")
		line := p.tok().line
		member := p.ident()
		if !p.isOp("(") {
			v, ok := staticField(class, member)
			if !ok {
				p.fail(unsupportedErr(line, "the field "+class+"."+member))
			}
			return &litExpr{v: v}
		}
		return p.method(nil, class, member, line)
	}
	if name != t.text || (t.text[0] >= 'A' && t.text[0] <= 'Z') {
		p.fail(unsupportedErr(t.line, "the class "+name))
	}
	p.fail(compileErrf(t.line, "%s cannot be resolved to a variable", t.text))
	return nil
}

// method parses a call's arguments and checks the method is in the subset.
func (p *parser) method(recv expr, class, name string, line int) expr {
	p.expectOp("(")
	var args []expr
	for !p.isOp(")") {
		args = append(args, p.expression())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	switch {
	case class == "udfContext":
		if !contextMethods[name] {
			p.fail(unsupportedErr(line, "the method udfContext."+name+"()"))
		}
	case recv == nil:
		if !staticMethodKnown(class, name, len(args)) {
			p.fail(unsupportedErr(line, "the method "+class+"."+name+"()"))
		}
	default:
		if !instanceMethods[name] {
			p.fail(unsupportedErr(line, "the method "+name+"()"))
		}
	}
	return &callExpr{recv: recv, class: class, name: name, args: args, line: line}
}

func (p *parser) newObject(line int) expr {
	name := p.qualifiedTypeName()
	class := stripPackage(name)
	if boxedConstructible[class] {
		p.expectOp("(")
		var args []expr
		for !p.isOp(")") {
			args = append(args, p.expression())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		switch {
		case len(args) == 1:
			return &boxExpr{class: class, arg: args[0]}
		case len(args) == 0 && class == "String":
			return &boxExpr{class: class}
		}
		p.fail(unsupportedErr(line, "new "+name+" with these arguments"))
	}
	k, ok := constructible[class]
	if !ok {
		p.fail(unsupportedErr(line, "new "+name))
	}
	if p.isOp("<") && !p.skipTypeArgs() {
		p.syntax("Syntax error on token \"<\"")
	}
	if p.isOp("[") {
		p.unsupported("an array")
	}
	p.expectOp("(")
	n := &newExpr{k: k, line: line}
	for !p.isOp(")") {
		n.args = append(n.args, p.expression())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if p.isOp("{") {
		p.unsupported("an anonymous class")
	}
	if len(n.args) > 1 {
		p.fail(unsupportedErr(line, "new "+name+" with these arguments"))
	}
	return n
}
