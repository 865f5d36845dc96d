package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// annotatedTry is a Responses stream of message id (of response rid) whose
// text delta is text and whose one url_citation, annotation 0, cites url
// over the text's first three characters; done, it ends there, else it
// stalls after the annotation and an event of a type openai-go v3 does not
// know.
func annotatedTry(rid, id, text, url string, done bool) recording {
	ev := func(seq int, body string) string {
		return fmt.Sprintf("data: {\"sequence_number\":%d,%s}\n\n", seq, body)
	}
	resp := fmt.Sprintf(`"response":{"id":%q,"object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}`, rid)
	note := fmt.Sprintf(`{"type":"url_citation","url":%q,"title":"t","start_index":0,"end_index":3}`, url)
	part := fmt.Sprintf(`{"type":"output_text","text":%q,"annotations":[%s]}`, text, note)
	item := fmt.Sprintf(`{"type":"message","id":%q,"status":"completed","role":"assistant","content":[%s]}`, id, part)
	at := fmt.Sprintf(`"item_id":%q,"output_index":0,"content_index":0`, id)
	data := ev(0, `"type":"response.created",`+resp) + ev(1, `"type":"response.in_progress",`+resp) +
		ev(2, fmt.Sprintf(`"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":%q,"status":"in_progress","role":"assistant","content":[]}`, id)) +
		ev(3, `"type":"response.content_part.added",`+at+`,"part":{"type":"output_text","text":"","annotations":[]}`) +
		ev(4, `"type":"response.output_text.delta",`+at+fmt.Sprintf(`,"delta":%q`, text)) +
		ev(5, `"type":"response.output_text.annotation.added",`+at+`,"annotation_index":0,"annotation":`+note) +
		ev(6, `"type":"response.output_text.future_mark.added",`+at+`,"delta":"kept"`)
	rec := recording{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	if !done {
		rec.Reads = []recordedRead{{TMS: 10, Data: data}, {TMS: 10_000, Data: ev(7, `"type":"response.output_text.delta",`+at+`,"delta":"late"`)}}
		return rec
	}
	data += ev(7, `"type":"response.output_text.done",`+at+fmt.Sprintf(`,"text":%q`, text)) +
		ev(8, `"type":"response.content_part.done",`+at+`,"part":`+part) +
		ev(9, `"type":"response.output_item.done","output_index":0,"item":`+item) +
		ev(10, fmt.Sprintf(`"type":"response.completed","response":{"id":%q,"object":"response","created_at":2,"status":"completed","model":"m","output":[%s],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}`, rid, item))
	rec.Reads = []recordedRead{{TMS: 10, Data: data}}
	return rec
}

// notes returns the URLs and character spans of annotations.
func notes(annotations []responses.ResponseOutputTextAnnotationUnion) []string {
	var s []string
	for _, a := range annotations {
		s = append(s, fmt.Sprintf("%s %d-%d", a.URL, a.StartIndex, a.EndIndex))
	}
	return s
}

// A Responses stream continued after a web search's citation: the
// continuation's citation is numbered on from the caller's (annotation 1,
// not a second annotation 0) and placed after the text before it, in
// characters ("Über " is 5 characters, 6 bytes); the done events and the
// final output hold both citations, not the continuation's alone; an
// event of a type openai-go does not know reaches the caller whole, on
// the caller's message.
func TestRouterResponseContinuationAnnotations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		requests := 0
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			requests++
			rec := annotatedTry("r1", "m1", "Über ", "https://a.example", false)
			if requests > 1 {
				rec = annotatedTry("r2", "m2", "two.", "https://b.example", true)
			}
			mu.Unlock()
			replay(rec)(w, r)
		}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, route("a"), route("b"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewResponseStreaming(context.Background(), respond("a", 100))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil || s.Text() != "Über two." {
			t.Fatalf("Err() = %v, Text() = %q; want nil, %q", err, s.Text(), "Über two.")
		}
		final, _ := checkOneResponse(t, evs, restarts)
		both := []string{"https://a.example 0-3", "https://b.example 5-8"}
		var added, unknown []string
		for _, ev := range evs {
			switch ev.Type {
			case "response.output_text.annotation.added":
				a := ev.Annotation
				added = append(added, fmt.Sprintf("%d %s %d-%d", ev.AnnotationIndex, a.URL, a.StartIndex, a.EndIndex))
			case "response.output_text.future_mark.added":
				unknown = append(unknown, fmt.Sprintf("%s %d %s", ev.ItemID, ev.OutputIndex, ev.Delta))
			case "response.content_part.done":
				if got := notes(ev.Part.Annotations); !slices.Equal(got, both) {
					t.Errorf("content_part.done annotations %q, want %q", got, both)
				}
			case "response.output_item.done":
				if got := notes(ev.Item.Content[0].Annotations); !slices.Equal(got, both) {
					t.Errorf("output_item.done annotations %q, want %q", got, both)
				}
			}
		}
		if want := []string{"0 https://a.example 0-3", "1 https://b.example 5-8"}; !slices.Equal(added, want) {
			t.Errorf("annotation.added events %q, want %q", added, want)
		}
		if want := []string{"m1 0 kept", "m1 0 kept"}; !slices.Equal(unknown, want) {
			t.Errorf("unknown events %q, want %q", unknown, want)
		}
		if got := notes(final.Output[0].Content[0].Annotations); !slices.Equal(got, both) {
			t.Errorf("final output's annotations %q, want %q", got, both)
		}
	})
}
