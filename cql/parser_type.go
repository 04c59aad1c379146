package cql

import "strconv"

// This file parses user-defined type DDL: CREATE, ALTER and DROP TYPE.

// createType parses CREATE TYPE [IF NOT EXISTS] name '(' field type (',' field type)* ')'.
func (p *parser) createType() Statement {
	p.next()
	p.next()
	s := &CreateType{IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expect(tLParen)
	for p.err == nil {
		s.Fields = append(s.Fields, FieldDef{Name: p.ident(), Type: p.typ()})
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRParen)
	return s
}

// alterType parses ALTER TYPE [IF EXISTS] name (ADD | RENAME | ALTER) ...
func (p *parser) alterType() Statement {
	p.next()
	p.next()
	s := &AlterUserType{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	switch {
	case p.acceptKw("add"):
		s.Op = AlterTypeAdd
		s.IfFieldExists = p.acceptKws("if", "not", "exists")
		s.Add = FieldDef{Name: p.ident(), Type: p.typ()}
	case p.acceptKw("rename"):
		s.Op = AlterTypeRename
		s.IfFieldExists = p.acceptKws("if", "exists")
		for p.err == nil {
			s.RenameFrom = append(s.RenameFrom, p.ident())
			p.expectKw("to")
			s.RenameTo = append(s.RenameTo, p.ident())
			if !p.acceptKw("and") {
				break
			}
		}
	case p.acceptKw("alter"):
		s.Op = AlterTypeAlter
		s.Add.Name = p.ident()
		p.expectKw("type")
		s.Add.Type = p.typ()
	default:
		p.noViable()
	}
	return s
}

// dropType parses DROP TYPE [IF EXISTS] name.
func (p *parser) dropType() Statement {
	p.next()
	p.next()
	s := &DropType{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	return s
}

// vectorType parses vector<type, n>. The dimension is checked when the
// type is prepared against a schema ("vectors may only have positive
// dimensions").
func (p *parser) vectorType() *Type {
	p.next()
	p.expect(tLt)
	e := p.typ()
	p.expect(tComma)
	if !p.is(tInt) {
		p.mismatch("an integer dimension")
	}
	n, err := strconv.Atoi(p.text(p.tok()))
	if err != nil && p.err == nil {
		p.failAt(p.tok(), "Invalid vector dimension "+p.text(p.tok()))
	}
	p.next()
	p.expect(tGt)
	if p.err != nil {
		return nil
	}
	return VectorOf(e, n)
}
