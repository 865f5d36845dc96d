package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvTable reads a CSV file with a header, by column name.
type csvTable struct {
	name string
	r    *csv.Reader
	col  map[string]int
	rec  []string
}

// newCSVTable reads the header of r and checks it names every column in
// want (the format's name for messages).
func newCSVTable(r io.Reader, name, format string, want ...string) (*csvTable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty: want a %s trace with the header %s", name, format, strings.Join(want, ","))
		}
		return nil, &LineError{Name: name, Line: 1, Err: err}
	}
	t := &csvTable{name: name, r: cr, col: map[string]int{}}
	for i, h := range head {
		t.col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, w := range want {
		if _, ok := t.col[w]; !ok {
			return nil, &LineError{Name: name, Line: 1, Err: fmt.Errorf("header %q has no column %q: want a %s trace with the header %s",
				strings.Join(head, ","), w, format, strings.Join(want, ","))}
		}
	}
	return t, nil
}

// next reads the next row; false at the end. A malformed row is err.
func (t *csvTable) next() (bool, error) {
	rec, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return false, &LineError{Name: t.name, Line: pe.Line, Err: pe.Err}
		}
		return false, err
	}
	t.rec = rec
	if len(rec) < len(t.col) {
		return false, t.errorf("%d fields, want %d as in the header", len(rec), len(t.col))
	}
	return true, nil
}

// field returns column name of the current row.
func (t *csvTable) field(name string) string { return strings.TrimSpace(t.rec[t.col[name]]) }

// tokens reads column name as a token count in [min, 2^24].
func (t *csvTable) tokens(name string, min int) (int, error) {
	v, err := strconv.Atoi(t.field(name))
	if err != nil || v < min || v > maxTokens {
		return 0, t.errorf("%s %q: want a whole number of tokens in [%d, %d]", name, t.field(name), min, maxTokens)
	}
	return v, nil
}

// errorf returns a *LineError for the current row.
func (t *csvTable) errorf(format string, a ...any) error {
	line, _ := t.r.FieldPos(0)
	return &LineError{Name: t.name, Line: line, Err: fmt.Errorf(format, a...)}
}
