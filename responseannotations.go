package tokenpace

import (
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// How a continuation's annotations carry on the caller's.
//
// A message's text part collects annotations (a web search's
// url_citation, a file_citation, a container_file_citation, a file_path:
// openai-go v3 responses/response.go, ResponseOutputTextAnnotationUnion)
// as response.output_text.annotation.added events, each numbered by its
// annotation_index within the part and placed in the part's text by
// index (a file_citation's), or start_index and end_index; a file_path's
// index numbers a file, not a place. A continuation's message, carried
// on into the caller's part, numbers its own annotations from 0 and
// places them in its own text. Passed on as they come, they would take
// the numbers of the caller's first annotations (an accumulator keyed by
// annotation_index, openai-go's ResponseAccumulator among them, loses
// those) and point at the start of the caller's text; and the done
// events and the final output, which hold the continuation's part, would
// drop the annotations the caller received before it. So the stitch
// numbers a continuation's annotations on from the caller's, moves their
// indices past the text before the try, and gives the part's done events
// and its final output every annotation the caller received.
//
// Indices count characters (Unicode code points), as OpenAI's reference
// describes them ("the index of the first character"), not bytes.

// maxKeptAnnotations bounds the annotations of the open part that the
// stitch keeps to give the done events of a continuation's part: past it,
// they are numbered on but not repeated there.
const maxKeptAnnotations = 256

// partNotes is what the stitch keeps of the open part's annotations.
type partNotes struct {
	count int64    // annotations passed on: the next annotation_index
	kept  []string // their JSON, up to maxKeptAnnotations
}

// note records an annotation.added event ev passed on for the open part.
func (n *partNotes) note(ev *responses.ResponseStreamEventUnion) {
	n.count = max(n.count, ev.AnnotationIndex+1)
	if raw := ev.Annotation.RawJSON(); raw != "" && len(n.kept) < maxKeptAnnotations {
		n.kept = append(n.kept, raw)
	}
}

// shifted returns annotation raw (JSON) placed by shift characters later.
// A file_path's index is no place in the text but the index of the file
// in the list of files (openai-go v3 responses/response.go,
// ResponseOutputTextAnnotationFilePath): it is kept.
func shifted(raw string, shift int) string {
	if shift == 0 {
		return raw
	}
	e := editor{raw: []byte(raw)}
	fields := []string{"index", "start_index", "end_index"}
	if gjson.Get(raw, "type").Str == "file_path" {
		fields = fields[1:]
	}
	for _, field := range fields {
		if v := gjson.Get(raw, field); v.Type == gjson.Number {
			e.set(field, v.Int()+int64(shift))
		}
	}
	if e.err != nil {
		return raw
	}
	return string(e.raw)
}

// carryNotes sets path in e to the annotations of the whole part: those
// the caller received before the try, then list (the JSON array of the
// try's part's own), placed after the text before it. It leaves e as it
// is when that is list.
func (s *respStitch) carryNotes(e *editor, path, list string) {
	notes := s.intoNotes.kept
	arr := gjson.Parse(list).Array()
	if len(notes) == 0 && (len(arr) == 0 || s.shift == 0) {
		return
	}
	all := make([]string, 0, len(notes)+len(arr))
	all = append(all, notes...)
	for _, a := range arr {
		all = append(all, shifted(a.Raw, s.shift))
	}
	e.setRaw(path, "["+strings.Join(all, ",")+"]")
}

// rewriteNote rewrites in e the annotation.added event ev of the try's
// part that carries on the caller's: numbered on from the caller's,
// placed after the text before the try.
func (s *respStitch) rewriteNote(e *editor, ev *responses.ResponseStreamEventUnion) {
	e.set("annotation_index", s.intoNotes.count+ev.AnnotationIndex)
	if raw := ev.Annotation.RawJSON(); raw != "" && s.shift != 0 {
		e.setRaw("annotation", shifted(raw, s.shift))
	}
}

// textShift returns how many characters text holds.
func textShift(text string) int { return utf8.RuneCountInString(text) }
