package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// refuse is an HTTP client that fails every request without sending it.
type refuse struct{}

var errRefused = errors.New("refused")

func (refuse) Do(*http.Request) (*http.Response, error) { return nil, errRefused }

func TestServerAddress(t *testing.T) {
	tests := []struct {
		baseURL  string
		wantHost string
		wantPort int
	}{
		{"https://user:s3cret@api.example.com/v1", "api.example.com", 443},
		{"http://llm.internal/v1", "llm.internal", 80},
		{"http://10.0.0.7:8000/v1", "10.0.0.7", 8000},
		{"https://[::1]:8443/v1", "::1", 8443},
	}
	for _, tt := range tests {
		c := tokenpace.NewClient(openaiClient(tt.baseURL, refuse{}))
		s := c.NewStreaming(context.Background(), chat("m", 3))
		s.Close()
		tm := s.Timing()
		if tm.ServerAddress != tt.wantHost || tm.ServerPort != tt.wantPort {
			t.Errorf("%s: ServerAddress, ServerPort = %q, %d, want %q, %d", tt.baseURL, tm.ServerAddress, tm.ServerPort, tt.wantHost, tt.wantPort)
		}
		if strings.Contains(tm.ServerAddress, "s3cret") {
			t.Errorf("%s: ServerAddress = %q holds the password", tt.baseURL, tm.ServerAddress)
		}
	}
}

func TestServerAddressLoopback(t *testing.T) {
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	wantPort, _ := strconv.Atoi(u.Port())
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"), option.WithMaxRetries(0)))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
	if err != nil {
		t.Fatalf("NewRouter() error = %v", err)
	}
	for _, s := range []*tokenpace.Stream[openai.ChatCompletionChunk]{c.NewStreaming(context.Background(), chat("m", 3)), r.NewStreaming(context.Background(), chat("m", 3))} {
		drain(t, s, 0)
		s.Close()
		tm := s.Timing()
		if tm.ServerAddress != u.Hostname() || tm.ServerPort != wantPort {
			t.Errorf("target %q: ServerAddress, ServerPort = %q, %d, want %q, %d", tm.Target, tm.ServerAddress, tm.ServerPort, u.Hostname(), wantPort)
		}
	}
}
