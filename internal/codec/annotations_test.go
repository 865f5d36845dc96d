package codec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAccumulatorAnnotations: the url_citation annotations a web search
// model streams in delta.annotations, a field openai-go's chunk lacks,
// reach each accumulated message as a whole response's message holds
// them, per choice, however many chunks carry them and however often the
// caller reads the accumulation.
func TestAccumulatorAnnotations(t *testing.T) {
	const cite = `{"type":"url_citation","url_citation":{"start_index":0,"end_index":3,"title":"T","url":%q}}`
	chat := Chat(openai.ChatCompletionNewParams{N: openai.Int(2)}, true)
	var acc Accumulator
	for _, d := range []string{
		`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"","annotations":[]}},{"index":1,"delta":{"role":"assistant","content":""}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"content":"Go."}},{"index":1,"delta":{"content":"Go!"}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"annotations":[` + fmt.Sprintf(cite, "https://a.example") + `]}}]}`,
		`{"id":"c","choices":[{"index":1,"delta":{"annotations":[` + fmt.Sprintf(cite, "https://b.example") + `,` + fmt.Sprintf(cite, "https://c.example") + `]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"annotations":[` + fmt.Sprintf(cite, "https://d.example") + `]},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}`,
	} {
		ev, err := chat.Decode([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if !acc.Add(&ev) {
			t.Fatalf("Add refused %s", d)
		}
		acc.Completion() // a read along the way changes nothing
	}
	want := [][]string{{"https://a.example", "https://d.example"}, {"https://b.example", "https://c.example"}}
	c := acc.Completion()
	for i, ch := range c.Choices {
		var got []string
		for _, a := range ch.Message.Annotations {
			got = append(got, a.URLCitation.URL)
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("choice %d's annotations = %q, want %q", i, got, want[i])
		}
	}
	if len(c.Choices) != 2 || c.Choices[0].Message.Content != "Go." {
		t.Errorf("accumulated %+v, want two choices, the first \"Go.\"", c.Choices)
	}
}

// TestAccumulatorFlatCitation: MiMo's web_search sources come in the
// first chunk as url_citation annotations whose url and title stand at
// the top level (lobehub/lobehub's recorded chunk): the accumulated
// message cites each URL and title, and keeps the server's other
// members; an annotation of another type, or one without a url, is left
// as it came.
func TestAccumulatorFlatCitation(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	var acc Accumulator
	for _, d := range []string{
		`{"id":"c","choices":[{"index":0,"delta":{"annotations":[{"site_name":"s.example","summary":"S","title":"T","type":"url_citation","url":"https://s.example/a"},{"type":"file_citation","url":"https://f.example"},{"type":"url_citation","title":"no url"}],"role":"assistant","content":""}}],"usage":{"web_search_usage":{"tool_usage":1,"page_usage":2}}}`,
		`{"id":"c","choices":[{"index":0,"delta":{"content":"Go."},"finish_reason":"stop"}]}`,
	} {
		ev, err := chat.Decode([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if !acc.Add(&ev) {
			t.Fatalf("Add refused %s", d)
		}
	}
	got := acc.Completion().Choices[0].Message.Annotations
	if len(got) != 3 {
		t.Fatalf("%d annotations, want 3", len(got))
	}
	if c := got[0].URLCitation; c.URL != "https://s.example/a" || c.Title != "T" || got[0].JSON.ExtraFields["site_name"].Raw() != `"s.example"` {
		t.Errorf("annotation 0 = %+v (site_name %s), want https://s.example/a, \"T\", site_name kept", c, got[0].JSON.ExtraFields["site_name"].Raw())
	}
	if got[1].Type != "file_citation" || got[1].URLCitation.URL != "" {
		t.Errorf("annotation 1 = %+v, want the file_citation as it came", got[1])
	}
	if got[2].URLCitation.URL != "" || got[2].URLCitation.Title != "" {
		t.Errorf("annotation 2 = %+v, want no citation made up for an annotation without a url", got[2])
	}
}
