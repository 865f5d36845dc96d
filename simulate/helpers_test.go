package simulate_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// event is one SSE event as a client read it.
type event struct {
	at   time.Duration // arrival, since the request was sent
	data string
}

// exchange is one raw HTTP exchange as a client saw it.
type exchange struct {
	status    int
	header    http.Header
	headersAt time.Duration
	events    []event // streaming responses
	body      string  // non-streaming responses
	err       error   // reading the body
}

// post sends body to path of ts and reads the response, timing every
// arrival from when the request was sent.
func post(t *testing.T, ts *simulate.TestServer, path, body string, header map[string]string) exchange {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(ts.URL, "/v1/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	res, err := ts.Client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	x := exchange{status: res.StatusCode, header: res.Header, headersAt: time.Since(start)}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(res.Body)
		x.body, x.err = string(b), err
		return x
	}
	r := bufio.NewReader(res.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err != io.EOF {
				x.err = err
			}
			return x
		}
		line = strings.TrimRight(line, "\n")
		if line == "" {
			continue
		}
		x.events = append(x.events, event{at: time.Since(start), data: strings.TrimPrefix(line, "data: ")})
	}
}

// chunk is the subset of a chat or text completion chunk tests look at.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func decodeChunk(t *testing.T, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %q: %v", data, err)
	}
	return c
}

// content returns the text a chunk carries (chat delta or completions
// text), and whether it carries any.
func (c chunk) content() (string, bool) {
	if len(c.Choices) == 0 {
		return "", false
	}
	if p := c.Choices[0].Delta.Content; p != nil && *p != "" {
		return *p, true
	}
	if p := c.Choices[0].Text; p != nil && *p != "" {
		return *p, true
	}
	return "", false
}

// ms is n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
