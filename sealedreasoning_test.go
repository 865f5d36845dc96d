package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// sealingServer is a stateless Responses deployment as OpenAI's and Azure
// OpenAI's are under store false: each reasoning item it makes carries
// encrypted content sealed with its account's key (the request's
// Authorization), and a request that gives back a reasoning item another
// account sealed is refused, 400 invalid_encrypted_content, one given by
// its id alone that it did not make, 404 (see the fixtures
// azure-responses-encrypted-content-other-resource-400 and
// openai-responses-store-false-item-not-found-404). Its answer's text
// names it and counts the reasoning items it was given.
type sealingServer struct {
	name    string
	status  int    // answered instead, when not 0
	downFor string // the key status is for; "" for every key
	byModel bool   // each model a deployment of its own (a gateway's model groups)
	// pairs: as OpenAI and Azure OpenAI, an item of an answer given back
	// by its id wants the reasoning item it followed there, or the
	// request is refused, 400 (see the fixture
	// openai-responses-function-call-without-reasoning-400).
	pairs bool

	mu     sync.Mutex
	n      int
	inputs [][]map[string]any // the input of each request, in order
}

func (s *sealingServer) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct {
		Model  string           `json:"model"`
		Stream bool             `json:"stream"`
		Input  []map[string]any `json:"input"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	answer := func(status int, ct, body string) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	fail := func(status int, msg, code string) (*http.Response, error) {
		e, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": code}})
		return answer(status, "application/json", string(e))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, req.Input)
	if s.status != 0 && (s.downFor == "" || r.Header.Get("Authorization") == "Bearer "+s.downFor) {
		return fail(s.status, "unavailable", "")
	}
	seal := "sealed:" + r.Header.Get("Authorization") + ":"
	if s.byModel {
		seal += req.Model + ":"
	}
	given := 0
	ids := map[string]bool{}
	for _, it := range req.Input {
		id, _ := it["id"].(string)
		ids[id] = true
	}
	for _, it := range req.Input {
		if it["type"] != "reasoning" {
			id, _ := it["id"].(string)
			if rs := "rs_" + strings.TrimPrefix(strings.TrimPrefix(id, "msg_"), "fc_"); s.pairs && rs != "rs_"+id && !ids[rs] {
				return fail(http.StatusBadRequest, fmt.Sprintf("Item '%s' of type '%s' was provided without its required 'reasoning' item: '%s'.", id, it["type"], rs), "")
			}
			continue
		}
		given++
		id, _ := it["id"].(string)
		switch enc, _ := it["encrypted_content"].(string); {
		case enc != "" && !strings.HasPrefix(enc, seal):
			return fail(http.StatusBadRequest, "The encrypted content for item "+id+" could not be verified. Reason: Encrypted content could not be decrypted or parsed.", "invalid_encrypted_content")
		case enc == "" && !strings.HasPrefix(id, "rs_"+s.name):
			return fail(http.StatusNotFound, "Item with id '"+id+"' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", "")
		}
	}
	s.n++
	id := fmt.Sprintf("%s%d", s.name, s.n)
	text := fmt.Sprintf("%s read %d reasoning items", s.name, given)
	reasoning := fmt.Sprintf(`{"type":"reasoning","id":"rs_%s","summary":[],"encrypted_content":%q}`, id, seal+id)
	message := fmt.Sprintf(`{"type":"message","id":"msg_%s","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, id, text)
	res := fmt.Sprintf(`{"id":"resp_%s","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[%s,%s],`+
		`"usage":{"input_tokens":5,"output_tokens":4,"total_tokens":9}}`, id, reasoning, message)
	if !req.Stream {
		return answer(http.StatusOK, "application/json", res)
	}
	var sse strings.Builder
	for i, ev := range []string{
		fmt.Sprintf(`{"type":"response.created","response":{"id":"resp_%s","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}}`, id),
		`{"type":"response.output_item.added","output_index":0,"item":` + strings.Replace(reasoning, `"summary"`, `"status":"in_progress","summary"`, 1) + `}`,
		`{"type":"response.output_item.done","output_index":0,"item":` + reasoning + `}`,
		fmt.Sprintf(`{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_%s","status":"in_progress","role":"assistant","content":[]}}`, id),
		fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_%s","output_index":1,"content_index":0,"delta":%q}`, id, text),
		`{"type":"response.output_item.done","output_index":1,"item":` + message + `}`,
		`{"type":"response.completed","response":` + res + `}`,
	} {
		ev = strings.Replace(ev, `{"type":`, fmt.Sprintf(`{"sequence_number":%d,"type":`, i), 1)
		var typ struct{ Type string }
		_ = json.Unmarshal([]byte(ev), &typ)
		fmt.Fprintf(&sse, "event: %s\ndata: %s\n\n", typ.Type, ev)
	}
	return answer(http.StatusOK, "text/event-stream", sse.String())
}

// input returns the input of the i-th request s was sent.
func (s *sealingServer) input(i int) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.inputs) {
		return nil
	}
	return s.inputs[i]
}

// requests returns how many requests s was sent.
func (s *sealingServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inputs)
}

// sealingRoute returns a route to s at host, on the account of key.
func sealingRoute(name, host, key string, s *sealingServer) tokenpace.Route {
	c := openai.NewClient(option.WithBaseURL("http://"+host+"/v1"), option.WithAPIKey(key),
		option.WithHTTPClient(&http.Client{Transport: s}), option.WithMaxRetries(0))
	return tokenpace.Route{Name: name, Client: &c}
}

// statelessTurn returns the params of a stateless turn: the user's
// question after history, the output items of the turns before.
func statelessTurn(history []responses.ResponseInputItemUnionParam, question string) responses.ResponseNewParams {
	in := append(history, responses.ResponseInputItemParamOfMessage(question, responses.EasyInputMessageRoleUser))
	return responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		Input:   responses.ResponseNewParamsInputUnion{OfInputItemList: in}}
}

// given returns history with the question and res's output items after
// it, as a caller builds the next turn's input.
func given(history []responses.ResponseInputItemUnionParam, question string, output []responses.ResponseOutputItemUnion) []responses.ResponseInputItemUnionParam {
	history = append(history, responses.ResponseInputItemParamOfMessage(question, responses.EasyInputMessageRoleUser))
	for _, it := range output {
		switch v := it.AsAny().(type) {
		case responses.ResponseReasoningItem:
			p := v.ToParam()
			history = append(history, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case responses.ResponseOutputMessage:
			p := v.ToParam()
			history = append(history, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		}
	}
	return history
}

// reasoningIDs returns the ids of the reasoning items of in.
func reasoningIDs(in []map[string]any) []string {
	var ids []string
	for _, it := range in {
		if it["type"] == "reasoning" {
			id, _ := it["id"].(string)
			ids = append(ids, id)
		}
	}
	return ids
}

// A stateless conversation whose first turn one deployment answered and
// whose second goes to another: the second is not given the first's
// sealed reasoning item, which it cannot open and refuses the request
// for; the deployment that made it still gets it back.
func TestSealedReasoningStaysWithItsDeployment(t *testing.T) {
	for _, tc := range []struct {
		name           string
		hostA, hostB   string
		keyA, keyB     string
		shared, stream bool
	}{
		{name: "azure_resources", hostA: "east.openai.azure.com", hostB: "west.openai.azure.com", keyA: "ka", keyB: "kb"},
		{name: "azure_resources_streamed", hostA: "east.openai.azure.com", hostB: "west.openai.azure.com", keyA: "ka", keyB: "kb", stream: true},
		{name: "two_accounts_one_host", hostA: "api.openai.com", hostB: "api.openai.com", keyA: "ka", keyB: "kb", shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := &sealingServer{name: "a", status: http.StatusServiceUnavailable, pairs: true}
				b := &sealingServer{name: "b", pairs: true}
				if tc.shared {
					b = a // one server: the key names the account
					a.name, a.downFor = "ab", tc.keyA
				}
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{},
					sealingRoute("a", tc.hostA, tc.keyA, a), sealingRoute("b", tc.hostB, tc.keyB, b))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				ask := func(p responses.ResponseNewParams) (*responses.Response, *tokenpace.Timing, error) {
					var tm *tokenpace.Timing
					if !tc.stream {
						res, err := r.NewResponse(ctx, p, tokenpace.WithTimingInto(&tm))
						return res, tm, err
					}
					s := r.NewResponseStreaming(ctx, p)
					defer s.Close()
					var res *responses.Response
					for s.Next() {
						if ev := s.Current(); ev.Type == "response.completed" {
							r := ev.Response
							res = &r
						}
					}
					return res, s.Timing(), s.Err()
				}
				// Turn 1: a is down, b answers with its sealed reasoning.
				res, tm, err := ask(statelessTurn(nil, "What is 17 * 23?"))
				if err != nil || tm.Target != "b" {
					t.Fatalf("turn 1 = %v from %v; want b's answer", err, tm)
				}
				history := given(nil, "What is 17 * 23?", res.Output)
				a.mu.Lock()
				a.status = 0 // a is well again, and first
				before := len(a.inputs)
				a.mu.Unlock()
				bBefore := b.requests()

				// Turn 2 goes to a, which did not make b's reasoning item.
				res, tm, err = ask(statelessTurn(history, "And 17 * 24?"))
				if err != nil || tm.Target != "a" || res.OutputText() != a.name+" read 0 reasoning items" {
					t.Fatalf("turn 2 = %q, %v from %s; want a's answer", outputText(res), err, tm.Target)
				}
				if got := reasoningIDs(a.input(before)); len(got) != 0 {
					t.Errorf("a was given reasoning items %q, which b made", got)
				}
				if got := len(a.input(before)); got != 3 {
					t.Errorf("a was given %d input items, want 3 (question, answer, question)", got)
				} else if id, ok := a.input(before)[1]["id"]; ok {
					t.Errorf("a was given b's answer with its id %v, which wants b's reasoning item beside it", id)
				}
				if !tc.shared && b.requests() != bBefore {
					t.Errorf("b was sent %d requests on turn 2, want none", b.requests()-bBefore)
				}
				if got := len(tm.HTTP); got != 1 {
					t.Errorf("turn 2 made %d requests, want 1", got)
				}

				// Turn 3 goes to b (a down again): b gets its own item
				// back, untouched, and none of a's.
				history = given(history, "And 17 * 24?", res.Output)
				a.mu.Lock()
				a.status = http.StatusServiceUnavailable
				a.mu.Unlock()
				bBefore = b.requests()
				res, tm, err = ask(statelessTurn(history, "And 17 * 25?"))
				if err != nil || tm.Target != "b" || res.OutputText() != b.name+" read 1 reasoning items" {
					t.Fatalf("turn 3 = %q, %v from %s; want b's answer with its own item", outputText(res), err, tm.Target)
				}
				in := b.input(bBefore)
				if tc.shared {
					in = b.input(b.requests() - 1)
				}
				if got := reasoningIDs(in); len(got) != 1 || got[0] != "rs_"+b.name+"1" {
					t.Errorf("b was given reasoning items %q, want its own rs_%s1 alone", got, b.name)
				}
			})
		})
	}
}

// outputText returns res's text, "" for none.
func outputText(res *responses.Response) string {
	if res == nil {
		return ""
	}
	return res.OutputText()
}

// A caller of one gateway whose models are deployments of their own
// (LiteLLM's model groups on two Azure resources) asks the next turn of
// the other model: it goes without the first model's reasoning item; the
// same turn asked of the first model gets it back.
func TestSealedReasoningClientModels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gw := &sealingServer{name: "gw", byModel: true}
		oc := openai.NewClient(option.WithBaseURL("http://litellm.test/v1"), option.WithAPIKey("k"),
			option.WithHTTPClient(&http.Client{Transport: gw}), option.WithMaxRetries(0))
		c := tokenpace.NewClient(oc)
		ctx := context.Background()
		first := statelessTurn(nil, "What is 17 * 23?")
		first.Model = "gpt-5-east"
		res, err := c.NewResponse(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		history := given(nil, "What is 17 * 23?", res.Output)
		next := statelessTurn(history, "And 17 * 24?")
		next.Model = "gpt-5-west"
		res, err = c.NewResponse(ctx, next)
		if err != nil || res.OutputText() != "gw read 0 reasoning items" {
			t.Fatalf("west's turn = %q, %v; want its answer", outputText(res), err)
		}
		next.Model = "gpt-5-east"
		res, err = c.NewResponse(ctx, next)
		if err != nil || res.OutputText() != "gw read 1 reasoning items" {
			t.Fatalf("east's turn = %q, %v; want its answer with its own item", outputText(res), err)
		}
		if got := reasoningIDs(gw.input(gw.requests() - 1)); len(got) != 1 || got[0] != "rs_gw1" {
			t.Errorf("east was given %q, want rs_gw1", got)
		}
	})
}

// One OpenAI account, the caller asking another model for the next turn:
// the account opens its reasoning items whatever model made them (the
// organization seals them), so the turn goes as the caller built it, the
// earlier model's reasoning item beside the answer it preceded, which
// OpenAI wants given back together (a message or a function call given
// by its id without its reasoning item is refused, 400).
func TestSealedReasoningOneAccountModels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sealingServer{name: "oa", pairs: true}
		oc := openai.NewClient(option.WithBaseURL("https://api.openai.com/v1"), option.WithAPIKey("k"),
			option.WithHTTPClient(&http.Client{Transport: s}), option.WithMaxRetries(0))
		c := tokenpace.NewClient(oc)
		ctx := context.Background()
		res, err := c.NewResponse(ctx, statelessTurn(nil, "What is 17 * 23?"))
		if err != nil {
			t.Fatal(err)
		}
		next := statelessTurn(given(nil, "What is 17 * 23?", res.Output), "And 17 * 24?")
		next.Model = "gpt-5-mini"
		res, err = c.NewResponse(ctx, next)
		if err != nil || res.OutputText() != "oa read 1 reasoning items" {
			t.Fatalf("gpt-5-mini's turn = %q, %v; want its answer with the account's item", outputText(res), err)
		}
	})
}
