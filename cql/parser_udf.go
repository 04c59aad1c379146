package cql

import "strings"

// This file parses user-defined function and aggregate DDL.

// createFunctionOrAggregate parses CREATE [OR REPLACE] FUNCTION|AGGREGATE;
// the current token is CREATE.
func (p *parser) createFunctionOrAggregate() Statement {
	p.next()
	orReplace := p.acceptKws("or", "replace")
	if p.acceptKw("aggregate") {
		return p.createAggregate(orReplace)
	}
	p.expectKw("function")
	s := &CreateFunction{OrReplace: orReplace, IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expect(tLParen)
	for p.err == nil && !p.is(tRParen) {
		s.Args = append(s.Args, FuncArg{Name: p.ident(), Type: p.typ()})
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRParen)
	if p.acceptKw("called") {
		s.CalledOnNull = true
	} else {
		p.expectKw("returns")
		p.expectKw("null")
	}
	p.expectKw("on")
	p.expectKw("null")
	p.expectKw("input")
	p.expectKw("returns")
	s.Returns = p.typ()
	p.expectKw("language")
	s.Language = strings.ToLower(p.ident())
	p.expectKw("as")
	if !p.is(tString) {
		p.mismatch("STRING_LITERAL")
		return s
	}
	s.Body = unquote(p.text(p.next()))
	return s
}

func (p *parser) createAggregate(orReplace bool) Statement {
	s := &CreateAggregate{OrReplace: orReplace, IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	s.ArgTypes = p.udfTypeList()
	p.expectKw("sfunc")
	s.StateFunc = p.funcIdent()
	p.expectKw("stype")
	s.StateType = p.typ()
	if p.acceptKw("finalfunc") {
		s.FinalFunc = p.funcIdent()
	}
	if p.acceptKw("initcond") {
		s.InitCond = p.term()
	}
	return s
}

// funcIdent parses a function name (unqualified, as SFUNC and FINALFUNC take).
func (p *parser) funcIdent() string { return p.ident() }

// udfTypeList parses '(' [type (',' type)*] ')'.
func (p *parser) udfTypeList() []*Type {
	p.expect(tLParen)
	var out []*Type
	for p.err == nil && !p.is(tRParen) {
		out = append(out, p.typ())
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRParen)
	return out
}

// dropFunctionOrAggregate parses DROP FUNCTION|AGGREGATE [IF EXISTS] name [(types)].
func (p *parser) dropFunctionOrAggregate() Statement {
	p.next()
	agg := p.acceptKw("aggregate")
	if !agg {
		p.expectKw("function")
	}
	ifExists := p.acceptKws("if", "exists")
	ks, name := p.qualifiedName()
	var types []*Type
	hasArgs := p.is(tLParen)
	if hasArgs {
		types = p.udfTypeList()
	}
	if agg {
		return &DropAggregate{Keyspace: ks, Name: name, IfExists: ifExists, HasArgs: hasArgs, ArgTypes: types}
	}
	return &DropFunction{Keyspace: ks, Name: name, IfExists: ifExists, HasArgs: hasArgs, ArgTypes: types}
}
