package engine

import (
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// indexedRel is a WHERE restriction answered by an index lookup.
type indexedRel struct {
	r  *restriction
	ii *indexInfo
}

// indexUse is the index plan of a SELECT: the restrictions whose index
// entries give the candidate rows (intersected), every restriction then
// being verified on the rows.
type indexUse struct {
	rels []indexedRel
}

func (u *indexUse) covers(r *restriction) bool {
	if u == nil {
		return false
	}
	for _, ir := range u.rels {
		if ir.r == r {
			return true
		}
	}
	return false
}

// coversAll reports whether every restriction of rs is answered by u.
func (u *indexUse) coversAll(rs []*restriction) bool {
	for _, r := range rs {
		if !u.covers(r) {
			return false
		}
	}
	return true
}

// chooseIndex picks the indexes a query uses, as Cassandra 5.0 does: all
// the restrictions SAI indexes can answer (SAI intersects them), else one
// restriction a legacy index answers. nil: no index applies.
func chooseIndex(ti *tableInfo, w *where) *indexUse {
	if len(ti.indexes) == 0 {
		return nil
	}
	var all []*restriction
	for _, rs := range w.pk {
		all = append(all, rs...)
	}
	for _, rs := range w.ck {
		all = append(all, rs...)
	}
	all = append(all, w.others...)
	sai, legacy := &indexUse{}, &indexUse{}
	for _, r := range all {
		for _, ii := range ti.indexes {
			if !indexAnswers(ti, ii, r) {
				continue
			}
			if ii.ix.SAI {
				if !sai.covers(r) {
					sai.rels = append(sai.rels, indexedRel{r, ii})
				}
			} else if len(legacy.rels) == 0 {
				legacy.rels = append(legacy.rels, indexedRel{r, ii})
			}
		}
	}
	switch {
	case len(sai.rels) > 0:
		return sai
	case len(legacy.rels) > 0:
		return legacy
	}
	return nil
}

// indexAnswers reports whether index ii can answer restriction r.
func indexAnswers(ti *tableInfo, ii *indexInfo, r *restriction) bool {
	if r.multi || r.token || len(r.cols) != 1 || r.cols[0] != ii.col || ii.lsh != nil {
		return false
	}
	switch ii.ix.Target {
	case cql.IndexSimple:
		if r.key != nil {
			return false
		}
		if r.op == cql.OpEq {
			return true
		}
		return ii.ix.SAI && r.isSlice() && saiRangeType(ii.term)
	case cql.IndexFull:
		return r.op == cql.OpEq && r.key == nil
	case cql.IndexValues:
		return r.op == cql.OpContains
	case cql.IndexKeys:
		return r.op == cql.OpContainsKey
	case cql.IndexEntries:
		return r.key != nil && r.op == cql.OpEq
	}
	return false
}

// saiRangeType: Cassandra 5.0.9's SAI answers ranges on numeric, time,
// timeuuid and inet columns, never on text, ascii, blobs, booleans or
// (non-time) uuids.
func saiRangeType(t *cql.Type) bool {
	switch t.Kind {
	case cql.KindText, cql.KindAscii, cql.KindBlob, cql.KindBoolean, cql.KindUUID:
		return false
	}
	return !t.IsCollection() && t.Kind != cql.KindTuple && t.Kind != cql.KindUDT
}

// hasINOnKey reports an IN restriction on a partition key column.
func hasINOnKey(w *where) bool {
	for _, rs := range w.pk {
		for _, r := range rs {
			if r.op == cql.OpIn {
				return true
			}
		}
	}
	return false
}

var errIndexWithIN = invalidf("Select on indexed columns and with IN clause for the PRIMARY KEY are not supported")

// checkIndexSupported refuses the SAI options the engine does not
// implement: the text analyzers change what equality means, and answering
// with exact matching would be wrong.
func checkIndexSupported(stmt cql.Statement) error {
	s, ok := stmt.(*cql.CreateIndex)
	if !ok {
		return nil
	}
	for k, v := range s.Options {
		switch strings.ToLower(k) {
		case "case_sensitive":
			if strings.EqualFold(v, "true") {
				continue
			}
		case "normalize", "ascii":
			if strings.EqualFold(v, "false") {
				continue
			}
		case "index_analyzer", "query_analyzer":
		default:
			continue
		}
		return bindings.Unsupported("SAI text analysis (index option %s) is not supported by dohyo's wide-column engine", k)
	}
	return nil
}
