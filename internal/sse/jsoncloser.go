package sse

// JSONCloser scans JSON text in pieces for the end of its first value, an
// object: whether it opened, closed, and nothing but white space came
// after it. It keeps only its depth and whether it is in a string, none
// of the text's bytes. The zero value is ready to use.
type JSONCloser struct {
	depth            int
	opened, closed   bool
	inString, escape bool
	bad              bool // a byte no whole object of JSON has there
}

// Feed scans the next piece.
func (j *JSONCloser) Feed(p string) { scanJSON(j, p) }

// feedBytes scans the next piece, a line of the body.
func (j *JSONCloser) feedBytes(p []byte) { scanJSON(j, p) }

// scanJSON scans p, the next piece of j's text.
func scanJSON[T string | []byte](j *JSONCloser, p T) {
	for i := 0; i < len(p) && !j.bad; i++ {
		b := p[i]
		switch {
		case j.inString:
			switch {
			case j.escape:
				j.escape = false
			case b == '\\':
				j.escape = true
			case b == '"':
				j.inString = false
			}
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
		case j.closed || (!j.opened && b != '{'):
			j.bad = true
		case b == '"':
			j.inString = true
		case b == '{' || b == '[':
			j.opened = true
			j.depth++
		case b == '}' || b == ']':
			j.depth--
			j.closed = j.depth == 0
		}
	}
}

// Whole reports whether the text scanned is one whole JSON object.
func (j *JSONCloser) Whole() bool { return j.closed && !j.bad }

// ended reports whether no byte after the text scanned can make it one
// whole JSON object more than it is: its object closed, or it is none.
func (j *JSONCloser) ended() bool { return j.closed || j.bad }
