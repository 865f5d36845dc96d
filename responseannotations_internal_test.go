package tokenpace

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestShiftedPlacesTextOnly: a continuation's annotation moves past the
// caller's text by the places in the text it names (a url_citation's and
// a container_file_citation's start_index and end_index, a
// file_citation's index: "the index in the output text at which to
// insert the file citation"), and keeps a file_path's index, which is no
// place in the text but "the index of the file in the list of files"
// (openai-go v3 responses/response.go, ResponseOutputTextAnnotationFilePath).
func TestShiftedPlacesTextOnly(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		field string
		want  int64
	}{
		{`{"type":"url_citation","url":"u","title":"t","start_index":0,"end_index":3}`, "start_index", 5},
		{`{"type":"url_citation","url":"u","title":"t","start_index":0,"end_index":3}`, "end_index", 8},
		{`{"type":"container_file_citation","container_id":"c","file_id":"f","filename":"a","start_index":1,"end_index":2}`, "end_index", 7},
		{`{"type":"file_citation","file_id":"f","filename":"a","index":4}`, "index", 9},
		{`{"type":"file_path","file_id":"f","index":1}`, "index", 1},
	} {
		got := shifted(tc.raw, 5)
		if v := gjson.Get(got, tc.field); v.Int() != tc.want {
			t.Errorf("shifted(%s, 5) = %s: %s %d, want %d", tc.raw, got, tc.field, v.Int(), tc.want)
		}
	}
}
