package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
)

// TestWrongContentTypeDetected checks, over real HTTP, that a successful
// response that is not an event stream (a proxy that buffered the stream
// into one JSON document) is flagged as a buffering proxy.
func TestWrongContentTypeDetected(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[]}`))
	}))
	defer srv.Close()
	var seen []metrics.Detection
	obs, err := metrics.New(metrics.WithDetectionHandler(func(_ context.Context, d metrics.Detection) {
		seen = append(seen, d)
	}))
	if err != nil {
		t.Fatal(err)
	}
	oc := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
	c := tokenpace.NewClient(oc, tokenpace.WithHooks(obs.Hooks()))
	s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	for s.Next() {
	}
	_ = s.Close()
	var se *tokenpace.StreamError
	if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindContentType {
		t.Fatalf("Err() = %v, want a KindContentType StreamError", s.Err())
	}
	if got := obs.Recorder.Snapshot().Detections[string(metrics.KindBufferingProxy)]; got != 1 {
		t.Errorf("Snapshot().Detections[%s] = %d, want 1", metrics.KindBufferingProxy, got)
	}
	if len(seen) != 1 || !strings.Contains(seen[0].Message, "application/json") || seen[0].Hint != metrics.BufferingHint {
		t.Errorf("detections = %+v, want one naming application/json with the buffering hint", seen)
	}
}
