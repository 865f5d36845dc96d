package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// wantOverloadSentAgain checks that the refusal a busy server gives in
// fixture is read as the server's failure: a Client that meets it on its
// first request sends the request again and gets the answer, and a Router
// whose first route (every path under /full/) keeps refusing gets its
// answer from the next route. other serves the requests it claims (it
// returns true) before anything else; the counts of requests by path are
// returned for its checks. Run inside a synctest bubble.
func wantOverloadSentAgain(t *testing.T, fixture, model string, other func(w http.ResponseWriter, r *http.Request) bool) (oc func(base string) *openai.Client, counts *requestCounts) {
	t.Helper()
	full := loadConformance(t)[fixture].recording
	var n atomic.Int64
	url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch {
		case other != nil && other(w, r):
		case strings.HasPrefix(r.URL.Path, "/full/") || n.Add(1) == 1:
			replay(full)(w, r)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"id\":\"chatcmpl-a\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello.\"},\"finish_reason\":null}]}\n\n" +
				"data: {\"id\":\"chatcmpl-a\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
		}
	})
	oc = func(base string) *openai.Client {
		c := openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc),
			option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1))
		return &c
	}
	ctx := context.Background()
	s := tokenpace.NewClient(*oc(url)).NewStreaming(ctx, chat(model, 64))
	if text := readAll(t, s); s.Err() != nil || text != "Hello." {
		t.Fatalf("text %q, Err() = %v; want the answer of the request sent again", text, s.Err())
	}
	r, err := tokenpace.NewRouter(tokenpace.NewClient(*oc("http://replay.invalid/full/v1/")), tokenpace.Policy{},
		tokenpace.Route{Name: "full", Model: model}, tokenpace.Route{Name: "next", Model: model, Client: oc(url)})
	if err != nil {
		t.Fatal(err)
	}
	s = r.NewStreaming(ctx, chat(model, 64))
	if text := readAll(t, s); s.Err() != nil || text != "Hello." {
		t.Errorf("Router: text %q, Err() = %v; want the next route's answer", text, s.Err())
	}
	return oc, counts
}
