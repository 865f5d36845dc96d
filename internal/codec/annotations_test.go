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
