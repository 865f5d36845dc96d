package simulate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestBadRequests(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   string
		status int
		param  string
	}{
		{"invalid JSON", "/v1/chat/completions", `{"model":`, 400, ""},
		{"missing model", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model"},
		{"unknown model", "/v1/chat/completions", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404, "model"},
		{"no messages", "/v1/chat/completions", `{"model":"m","messages":[]}`, 400, "messages"},
		{"max_tokens 0", "/v1/chat/completions", `{"model":"m","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`, 400, "max_tokens"},
		{"max_tokens over limit", "/v1/chat/completions", `{"model":"m","max_tokens":1000001,"messages":[{"role":"user","content":"hi"}]}`, 400, "max_tokens"},
		{"max_completion_tokens negative", "/v1/chat/completions", `{"model":"m","max_completion_tokens":-5,"messages":[{"role":"user","content":"hi"}]}`, 400, "max_completion_tokens"},
		{"n 2", "/v1/chat/completions", `{"model":"m","n":2,"messages":[{"role":"user","content":"hi"}]}`, 400, "n"},
		{"bad stop", "/v1/chat/completions", `{"model":"m","stop":5,"messages":[{"role":"user","content":"hi"}]}`, 400, "stop"},
		{"bad content", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":5}]}`, 400, ""},
		{"body too large", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`, 413, ""},
		{"completions bad prompt", "/v1/completions", `{"model":"m","prompt":{}}`, 400, "prompt"},
		{"completions two prompts", "/v1/completions", `{"model":"m","prompt":["a","b"]}`, 400, "prompt"},
		{"completions unknown model", "/v1/completions", `{"model":"x","prompt":"a"}`, 404, "model"},
		{"no messages before bad stop", "/v1/chat/completions", `{"model":"m","stop":5,"messages":[]}`, 400, "messages"},
		{"completions bad prompt before bad stop", "/v1/completions", `{"model":"m","stop":5,"prompt":{}}`, 400, "prompt"},
		{"completions bad stop", "/v1/completions", `{"model":"m","stop":5,"prompt":"a"}`, 400, "stop"},
		{"completions max_tokens 0", "/v1/completions", `{"model":"m","max_tokens":0,"prompt":"a"}`, 400, "max_tokens"},
		{"unknown path", "/v2/chat", `{}`, 404, ""},
		{"five stops", "/v1/chat/completions", `{"model":"m","stop":["a","b","c","d","e"],"messages":[{"role":"user","content":"hi"}]}`, 400, "stop"},
		{"completions five stops", "/v1/completions", `{"model":"m","stop":["a","b","c","d","e"],"prompt":"a"}`, 400, "stop"},
		{"token ids with a fraction", "/v1/completions", `{"model":"m","prompt":[1,2.5]}`, 400, "prompt"},
		{"token ids with a string", "/v1/completions", `{"model":"m","prompt":[1,"a"]}`, 400, "prompt"},
		{"empty prompt array", "/v1/completions", `{"model":"m","prompt":[]}`, 400, "prompt"},
		{"responses no input", "/v1/responses", `{"model":"m"}`, 400, "input"},
		{"responses empty input", "/v1/responses", `{"model":"m","input":[]}`, 400, "input"},
		{"responses bad input", "/v1/responses", `{"model":"m","input":5}`, 400, "input"},
		{"responses bad content", "/v1/responses", `{"model":"m","input":[{"role":"user","content":5}]}`, 400, "input"},
		{"responses max_output_tokens 0", "/v1/responses", `{"model":"m","max_output_tokens":0,"input":"hi"}`, 400, "max_output_tokens"},
		{"responses unknown model", "/v1/responses", `{"model":"x","input":"hi"}`, 404, "model"},
		{"max_tokens a string", "/v1/chat/completions", `{"model":"m","max_tokens":"5","messages":[{"role":"user","content":"hi"}]}`, 400, "max_tokens"},
		{"temperature a string", "/v1/chat/completions", `{"model":"m","temperature":"hot","messages":[{"role":"user","content":"hi"}]}`, 400, "temperature"},
		{"stream a string", "/v1/completions", `{"model":"m","stream":"yes","prompt":"a"}`, 400, "stream"},
		{"messages a string", "/v1/chat/completions", `{"model":"m","messages":"hi"}`, 400, "messages"},
		{"responses max_output_tokens a fraction", "/v1/responses", `{"model":"m","max_output_tokens":1.5,"input":"hi"}`, 400, "max_output_tokens"},
		{"responses tools a string", "/v1/responses", `{"model":"m","tools":"get_weather","input":"hi"}`, 400, "tools"},
		{"responses background a string", "/v1/responses", `{"model":"m","background":"yes","input":"hi"}`, 400, "background"},
		{"chat logprobs a number", "/v1/chat/completions", `{"model":"m","logprobs":5,"messages":[{"role":"user","content":"hi"}]}`, 400, "logprobs"},
		{"completions logprobs a boolean", "/v1/completions", `{"model":"m","logprobs":true,"prompt":"a"}`, 400, "logprobs"},
		{"stream_options without stream", "/v1/chat/completions", `{"model":"m","stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, 400, "stream_options"},
		{"completions stream_options without stream", "/v1/completions", `{"model":"m","stream":false,"stream_options":{"include_usage":true},"prompt":"a"}`, 400, "stream_options"},
		{"message without role", "/v1/chat/completions", `{"model":"m","messages":[{"content":"hi"}]}`, 400, "messages[0].role"},
		{"message with an unknown role", "/v1/chat/completions", `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"human","content":"hi"}]}`, 400, "messages[1].role"},
		{"user message without content", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user"}]}`, 400, "messages[0].content"},
		{"user message with null content", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":null}]}`, 400, "messages[0].content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}), simulate.WithMaxBodyBytes(1000))
				x := post(t, ts, tt.path, tt.body, nil)
				if x.status != tt.status {
					t.Errorf("status = %d, want %d (body %s)", x.status, tt.status, x.body)
				}
				checkErrorBody(t, x.body, tt.param)
			})
		})
	}
}

// checkErrorBody checks body is {"error":{"message","type","param","code"}}
// with the given param ("" for null).
func checkErrorBody(t *testing.T, body, param string) {
	t.Helper()
	var e struct {
		Error *struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    any     `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == nil {
		t.Fatalf("error body %q is not an OpenAI error: %v", body, err)
	}
	if e.Error.Message == "" || e.Error.Type == "" {
		t.Errorf("error body %s lacks message or type", body)
	}
	if strings.Contains(e.Error.Message, "Go struct") || strings.Contains(e.Error.Message, "simulate.") {
		t.Errorf("error message %q names the simulator's Go types, want the API's parameter", e.Error.Message)
	}
	got := ""
	if e.Error.Param != nil {
		got = *e.Error.Param
	}
	if got != param {
		t.Errorf("error param = %q, want %q", got, param)
	}
}

func TestWrongMethod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t)
		base := strings.TrimSuffix(ts.URL, "/v1/")
		for _, c := range []struct{ method, path, allow string }{
			{http.MethodGet, "/v1/chat/completions", "POST"},
			{http.MethodPut, "/v1/completions", "POST"},
			{http.MethodPost, "/v1/models", "GET, HEAD"},
			{http.MethodDelete, "/health", "GET, HEAD"},
		} {
			req, _ := http.NewRequest(c.method, base+c.path, nil)
			res, err := ts.Client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", c.method, c.path, err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != c.allow {
				t.Errorf("%s %s = %d Allow %q, want 405 Allow %q", c.method, c.path, res.StatusCode, res.Header.Get("Allow"), c.allow)
			}
			checkErrorBody(t, string(b), "")
		}
	})
}

func get(t *testing.T, ts *simulate.TestServer, path string) (int, string) {
	t.Helper()
	res, err := ts.Client.Get(strings.TrimSuffix(ts.URL, "/v1/") + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return res.StatusCode, string(b)
}

// TestHealthAfterClose checks that /health says the server serves only
// while it does: once Close has stopped the drivers, completions get 503,
// and so does /health, so that a load balancer or a readiness probe stops
// sending requests to it.
func TestHealthAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(10), ITL: ms(10)}))
		chat := `{"model":"m","max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`
		if code, body := get(t, ts, "/health"); code != http.StatusOK {
			t.Errorf("serving: GET /health = %d %s, want 200", code, body)
		}
		ts.Server.Close()
		if x := post(t, ts, "/v1/chat/completions", chat, nil); x.status != http.StatusServiceUnavailable {
			t.Fatalf("closed: POST /v1/chat/completions = %d %s, want 503", x.status, x.body)
		}
		code, body := get(t, ts, "/health")
		if code != http.StatusServiceUnavailable {
			t.Errorf("closed: GET /health = %d %s, want 503", code, body)
		}
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" {
			t.Errorf("closed: GET /health body = %s, want an OpenAI-style JSON error (%v)", body, err)
		}
	})
}

func TestModelsHealthMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("small", &simulate.Fixed{TTFT: ms(10), ITL: ms(10)}),
			simulate.WithModel("big", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
		if code, body := get(t, ts, "/health"); code != 200 {
			t.Errorf("GET /health = %d %s, want 200", code, body)
		}
		code, body := get(t, ts, "/v1/models")
		var list struct {
			Object string `json:"object"`
			Data   []struct {
				ID     string `json:"id"`
				Object string `json:"object"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil || code != 200 {
			t.Fatalf("GET /v1/models = %d %s: %v", code, body, err)
		}
		if list.Object != "list" || len(list.Data) != 2 || list.Data[0].ID != "big" || list.Data[1].ID != "small" || list.Data[0].Object != "model" {
			t.Errorf("models = %s, want a list of big and small", body)
		}
		// Two streams on big, one on small; look at the metrics while
		// they run.
		done := make(chan struct{})
		for _, m := range []string{"big", "big", "small"} {
			go func() {
				post(t, ts, "/v1/chat/completions", `{"model":"`+m+`","max_tokens":5,"messages":[{"role":"user","content":"0123456789abcdef"}]}`, nil)
				done <- struct{}{}
			}()
		}
		synctest.Wait()
		_, metrics := get(t, ts, "/metrics")
		for _, want := range []string{
			"# TYPE tokenpace_sim_requests_running gauge",
			`tokenpace_sim_requests_running{model="big"} 2`,
			`tokenpace_sim_requests_running{model="small"} 1`,
			`tokenpace_sim_requests_waiting{model="big"} 0`,
			`tokenpace_sim_prompt_tokens_total{model="big"} 22`, // 2 × (16/4 + 4 + 3)
			`tokenpace_sim_kv_cache_usage_ratio{model="small"} 0`,
		} {
			if !strings.Contains(metrics, want+"\n") {
				t.Errorf("metrics lack %q:\n%s", want, metrics)
			}
		}
		for range 3 {
			<-done
		}
		_, metrics = get(t, ts, "/metrics")
		if want := `tokenpace_sim_generation_tokens_total{model="big"} 10`; !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	})
}

func TestNonStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithRTT(ms(30)),
			simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "Hello there, friend.", true }))
		x := post(t, ts, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil)
		var res struct {
			Object  string `json:"object"`
			Choices []struct {
				Message struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				PromptTokens, CompletionTokens int
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(x.body), &res); err != nil {
			t.Fatalf("body %s: %v", x.body, err)
		}
		if res.Object != "chat.completion" || res.Choices[0].Message.Role != "assistant" ||
			res.Choices[0].Message.Content != "Hello there, friend." || res.Choices[0].FinishReason != "stop" {
			t.Errorf("response = %s, want the scripted reply with finish stop", x.body)
		}
		// 3 tokens: the last is due at 100 + 2×10 ms, plus the RTT.
		if x.headersAt != ms(150) {
			t.Errorf("response arrived at %v, want %v", x.headersAt, ms(150))
		}
		x = post(t, ts, "/v1/completions", `{"model":"m","prompt":[1,2,3,4,5,6,7],"max_tokens":2}`, nil)
		var text struct {
			Object  string `json:"object"`
			Choices []struct {
				Text         string `json:"text"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(x.body), &text); err != nil {
			t.Fatalf("body %s: %v", x.body, err)
		}
		if text.Object != "text_completion" || text.Choices[0].Text != "Hello there," || text.Choices[0].FinishReason != "length" ||
			text.Usage.PromptTokens != 7 || text.Usage.CompletionTokens != 2 {
			t.Errorf("completions response = %s, want 2 tokens of the reply, finish length, 7 prompt tokens", x.body)
		}
	})
}

func TestNewServerRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts []simulate.Option
	}{
		{"duplicate model", []simulate.Option{simulate.WithModel("a", &simulate.Fixed{}), simulate.WithModel("a", &simulate.Fixed{})}},
		{"empty name", []simulate.Option{simulate.WithModel("", &simulate.Fixed{})}},
		{"nil scheduler", []simulate.Option{simulate.WithModel("a", nil)}},
		{"negative rtt", []simulate.Option{simulate.WithRTT(-1)}},
		{"zero chunk tokens", []simulate.Option{simulate.WithChunkTokens(0)}},
		{"max tokens over limit", []simulate.Option{simulate.WithMaxTokens(10), simulate.WithMaxTokensLimit(5)}},
		{"zero body limit", []simulate.Option{simulate.WithMaxBodyBytes(0)}},
	}
	for _, tt := range tests {
		s, err := simulate.NewServer(tt.opts...)
		if err == nil {
			s.Close()
			t.Errorf("NewServer(%s) error = nil, want an error", tt.name)
		} else if !strings.HasPrefix(err.Error(), "simulate: ") {
			t.Errorf("NewServer(%s) error = %q, want the simulate: prefix", tt.name, err)
		}
	}
}

// On virtual time the server is never late.
func TestSendLatenessIsZeroOnVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(10), ITL: ms(10)}), simulate.WithRTT(ms(4)))
		post(t, ts, "/v1/chat/completions", `{"model":"m","stream":true,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil)
		_, metrics := get(t, ts, "/metrics")
		// Headers, then five writes of chunks.
		for _, want := range []string{
			`tokenpace_sim_send_lateness_seconds_bucket{le="0.0001"} 6`,
			`tokenpace_sim_send_lateness_seconds_bucket{le="+Inf"} 6`,
			`tokenpace_sim_send_lateness_seconds_sum 0`,
		} {
			if !strings.Contains(metrics, want+"\n") {
				t.Errorf("metrics lack %q:\n%s", want, metrics)
			}
		}
	})
}
