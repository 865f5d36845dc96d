package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestChituOverloadSentAgain: Chitu refuses a request past its pool of
// max_reqs requests with 403 and FastAPI's {"detail": "exceeding server
// processing capacity"} (thu-pacman/chitu chitu/serve.py,
// create_chat_completion). The caller got it as a request it may not
// make: sent once, not counted, and a Router handed it back instead of
// trying its next route. It is now the 503 it is: sent again, and a
// Router whose first route stays full gets its answer from the next.
func TestChituOverloadSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := loadConformance(t)["chitu-capacity-403-detail"].recording
		var n atomic.Int64
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if strings.HasPrefix(r.URL.Path, "/full/") || n.Add(1) == 1 {
				replay(full)(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"id\":\"9c41e2a7\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\"},\"finish_reason\":null}]}\n\n" +
				"data: {\"id\":\"9c41e2a7\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
		})
		oc := func(base string) *openai.Client {
			c := openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1))
			return &c
		}
		ctx := context.Background()
		const model = "DeepSeek-R1"

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
	})
}
