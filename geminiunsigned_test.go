package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// geminiModels answers as Gemini 3's OpenAI-compatible endpoint does for
// several models (ai.google.dev/gemini-api/docs/thought-signatures): a
// first turn calls get_weather, signed with the answering model's own
// signature in extra_content; a later request is checked on the current
// turn alone (the messages after the last user message): the first call
// of each assistant message there must carry the signature of the model
// asked, or Google's sentinel, else 400 ("Function call is missing a
// thought_signature in functionCall parts", or "Corrupted thought
// signature." for another model's); earlier turns are not checked. A
// model in fail is overloaded (503); a model not named gemini answers
// unsigned calls and checks nothing, as another vendor's would.
//
// A turn makes steps steps of calls (one if 0) before it answers. With
// vertex, the signature goes in extra_content.vertex, as this package's
// notes have Vertex AI write it, and any other member of extra_content
// is refused as Google's APIs refuse a field their schema does not know:
// 400 "Invalid JSON payload received. Unknown name … Cannot find field."
type geminiModels struct {
	fail   map[string]bool
	steps  int
	vertex bool

	mu   sync.Mutex
	seen []string // each request: its model and the signatures it gave ("-" for none)
}

// signatureOf is the signature model puts on its calls.
func signatureOf(model string) string { return "CpwB" + strings.ReplaceAll(model, "-", "") }

// requests returns the requests seen since the last call, and forgets
// them.
func (g *geminiModels) requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.seen
	g.seen = nil
	return out
}

func (g *geminiModels) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Extra map[string]struct {
					Sig *string `json:"thought_signature"`
				} `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	space := "google"
	if g.vertex {
		space = "vertex"
	}
	var sigs []string
	refusal, unknown := "", "" // the validation's refusal; the schema's, which comes first
	steps := 0                 // the current turn's steps of calls so far
	current := false
	for i := len(req.Messages) - 1; i >= 0; i-- {
		current = current || req.Messages[i].Role == "user"
		if len(req.Messages[i].ToolCalls) == 0 {
			continue
		}
		for j, c := range req.Messages[i].ToolCalls {
			for name := range c.Extra {
				if name != space {
					unknown = fmt.Sprintf("Invalid JSON payload received. Unknown name %q at 'messages[%d].tool_calls[%d].extra_content': Cannot find field.", name, i, j)
				}
			}
		}
		if !current {
			steps++
		}
		sig := req.Messages[i].ToolCalls[0].Extra[space].Sig
		switch {
		case sig == nil:
			sigs = append(sigs, "-")
		default:
			sigs = append(sigs, *sig)
		}
		if current || !strings.Contains(req.Model, "gemini") {
			continue // an earlier turn, or a model that checks none
		}
		switch {
		case sig == nil:
			refusal = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
		case *sig != signatureOf(req.Model) && *sig != skipSignature:
			refusal = "Corrupted thought signature."
		}
	}
	if unknown != "" {
		refusal = unknown
	}
	g.mu.Lock()
	g.seen = append(g.seen, req.Model+" "+strings.Join(sigs, ","))
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case g.fail[req.Model]:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `[{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]`)
		return
	case refusal != "":
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `[{"error":{"code":400,"message":%q,"status":"INVALID_ARGUMENT"}}]`, refusal)
		return
	}
	delta := `"content":"Sunny in Paris."`
	if steps < max(g.steps, 1) {
		extra := ""
		if strings.Contains(req.Model, "gemini") {
			extra = `"extra_content":{"` + space + `":{"thought_signature":"` + signatureOf(req.Model) + `"}},`
		}
		delta = `"tool_calls":[{` + extra + `"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_` + req.Model + fmt.Sprint(steps) + `","type":"function"}]`
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: {\"id\":\"gm-1\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",%s},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", req.Model, delta)
}

// serveAs starts g on loopback and returns an openai-go client that
// reaches it at baseURL, whatever host that names (Google's, as the
// caller would write it), over plain HTTP.
func (g *geminiModels) serveAs(t *testing.T, baseURL string) openai.Client {
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	if baseURL == "" {
		baseURL = ts.URL
	}
	return openaiClient(baseURL, &http.Client{Transport: tr})
}

// skipSignature is Google's sentinel for a call whose signature the
// model did not make.
const skipSignature = "skip_thought_signature_validator"

// googleBase is the Gemini API's OpenAI-compatible base URL, over plain
// HTTP for the loopback emulator.
const googleBase = "http://generativelanguage.googleapis.com/v1beta/openai"

// weatherTurn returns the first turn's params asked of model, and, once
// the first turn answered msg, the second's: the tool agent's
// conversation as openai-go builds it (msg.ToParam()).
func weatherTurn(model string, msg *openai.ChatCompletionMessage) openai.ChatCompletionNewParams {
	p := weatherTurns(msg)
	p.Model = model
	return p
}

// firstCall streams the first turn through stream and returns its
// answer, which must make one call.
func firstCall(t *testing.T, stream streamFunc, model string) openai.ChatCompletionMessage {
	t.Helper()
	s := stream(context.Background(), weatherTurn(model, nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	if len(msg.ToolCalls) != 1 {
		t.Fatalf("first turn: %d calls (Err %v), want 1", len(msg.ToolCalls), s.Err())
	}
	return msg
}

// secondTurn streams the second turn, built from msg, asked of model
// through stream, and checks that it is answered.
func secondTurn(t *testing.T, stream streamFunc, model string, msg openai.ChatCompletionMessage) {
	t.Helper()
	s := stream(context.Background(), weatherTurn(model, &msg))
	drain(t, s, 0)
	if err := s.Err(); err != nil || s.Text() != "Sunny in Paris." {
		t.Fatalf("second turn: Text() = %q, Err() = %v, want the answer", s.Text(), err)
	}
}

// checkRequests checks the requests g saw since the last check.
func checkRequests(t *testing.T, g *geminiModels, turn string, want ...string) {
	t.Helper()
	if got := g.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s: requests (model, signatures given) = %q, want %q", turn, got, want)
	}
}

// TestGeminiUnsignedRouterFallback checks a Router of gemini-3-pro and
// gemini-3-flash on one gateway over two turns: pro is overloaded on the
// first turn and flash makes the call; the call's result goes first to
// flash, the model that signed the call, with its own signature, and is
// answered: no request refused, none wasted, and no step's reasoning
// lost to the sentinel. When flash is overloaded then, pro is asked next
// and is sent Google's sentinel on the call flash signed (flash's own
// signature is for flash alone), and answers. Before the sentinel, pro
// got the call without a signature and refused it, 400, and the Router
// fell back to flash.
func TestGeminiUnsignedRouterFallback(t *testing.T) {
	for _, flashDown := range []bool{false, true} {
		g := &geminiModels{fail: map[string]bool{"gemini-3.1-pro-preview": true}}
		oc := g.serveAs(t, "")
		r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{},
			tokenpace.Route{Name: "pro", Model: "gemini-3.1-pro-preview"}, tokenpace.Route{Name: "flash", Model: "gemini-3-flash-preview"})
		if err != nil {
			t.Fatal(err)
		}
		msg := firstCall(t, r.NewStreaming, "gemini")
		checkRequests(t, g, "first turn", "gemini-3.1-pro-preview ", "gemini-3-flash-preview ")
		g.mu.Lock()
		g.fail = map[string]bool{"gemini-3-flash-preview": flashDown}
		g.mu.Unlock()
		secondTurn(t, r.NewStreaming, "gemini", msg)
		if flashDown {
			checkRequests(t, g, "second turn, flash down", "gemini-3-flash-preview "+signatureOf("gemini-3-flash-preview"),
				"gemini-3.1-pro-preview "+skipSignature)
		} else {
			checkRequests(t, g, "second turn", "gemini-3-flash-preview "+signatureOf("gemini-3-flash-preview"))
		}
	}
}

// TestGeminiUnsignedClientModels checks a Client on the Gemini API whose
// caller asks gemini-3-pro for the turn after gemini-3-flash's call: pro
// is sent the sentinel, not flash's signature (which it would refuse,
// "Corrupted thought signature."), and answers; the same turn asked of
// flash gets flash's own signature back, not the sentinel; a whole
// (non-streamed) request to pro gets the sentinel as a stream does.
func TestGeminiUnsignedClientModels(t *testing.T) {
	g := &geminiModels{}
	c := tokenpace.NewClient(g.serveAs(t, googleBase))
	msg := firstCall(t, c.NewStreaming, "gemini-3-flash-preview")
	checkRequests(t, g, "first turn", "gemini-3-flash-preview ")
	secondTurn(t, c.NewStreaming, "gemini-3.1-pro-preview", msg)
	checkRequests(t, g, "second turn to pro", "gemini-3.1-pro-preview "+skipSignature)
	secondTurn(t, c.NewStreaming, "gemini-3-flash-preview", msg)
	checkRequests(t, g, "second turn to flash", "gemini-3-flash-preview "+signatureOf("gemini-3-flash-preview"))

	res, err := c.New(context.Background(), weatherTurn("gemini-3.1-pro-preview", &msg))
	if err != nil || res.Choices[0].Message.Content != "Sunny in Paris." {
		t.Fatalf("second turn to pro, whole: %v, %v; want the answer", res, err)
	}
	checkRequests(t, g, "second turn to pro, whole", "gemini-3.1-pro-preview "+skipSignature)
}

// TestGeminiUnsignedAfterClaude checks a Router of a Claude route and a
// Gemini one (the Gemini API, which has answered nothing yet): Claude
// makes the call; on the next turn Claude's route is down and the Router
// falls back to Gemini, which is sent the sentinel on Claude's call and
// answers. Before, Gemini refused the unsigned call, 400, and the
// caller, with no route left, got that error. Claude's request carries
// no sentinel, nor does a request to a Gemini model before 3.
func TestGeminiUnsignedAfterClaude(t *testing.T) {
	claude := &geminiModels{}
	gemini := &geminiModels{}
	cc, gc := claude.serveAs(t, ""), gemini.serveAs(t, googleBase)
	r, err := tokenpace.NewRouter(tokenpace.NewClient(cc), tokenpace.Policy{},
		tokenpace.Route{Name: "claude", Model: "claude-sonnet-4-5"},
		tokenpace.Route{Name: "gemini", Client: &gc, Model: "gemini-3-flash-preview"})
	if err != nil {
		t.Fatal(err)
	}
	msg := firstCall(t, r.NewStreaming, "agent")
	checkRequests(t, claude, "first turn", "claude-sonnet-4-5 ")
	claude.mu.Lock()
	claude.fail = map[string]bool{"claude-sonnet-4-5": true}
	claude.mu.Unlock()
	secondTurn(t, r.NewStreaming, "agent", msg)
	checkRequests(t, claude, "second turn, Claude's route", "claude-sonnet-4-5 -")
	checkRequests(t, gemini, "second turn, Gemini's route", "gemini-3-flash-preview "+skipSignature)

	old := tokenpace.NewClient(gc)
	s := old.NewStreaming(context.Background(), weatherTurn("gemini-2.5-flash", &msg))
	drain(t, s, 0)
	checkRequests(t, gemini, "the turn asked of gemini-2.5-flash", "gemini-2.5-flash -")
}

// TestGeminiUnsignedOwnSignatureWins checks one turn of three steps on
// the Gemini API, asked of gemini-3.1-pro, then gemini-3-flash, then pro
// again (a caller switching models, or a Router falling back and back):
// pro makes the first call, flash the second; flash is sent the sentinel
// on pro's call, and pro, on the third step, its own signature on its
// call and the sentinel on flash's, never the sentinel in place of a
// signature of its own, nor flash's.
func TestGeminiUnsignedOwnSignatureWins(t *testing.T) {
	const pro, flash = "gemini-3.1-pro-preview", "gemini-3-flash-preview"
	g := &geminiModels{steps: 2}
	c := tokenpace.NewClient(g.serveAs(t, googleBase))
	first := firstCall(t, c.NewStreaming, pro)
	checkRequests(t, g, "step 1, pro", pro+" ")

	p := weatherTurn(flash, &first)
	s := c.NewStreaming(context.Background(), p)
	drain(t, s, 0)
	second := s.Accumulated().Choices[0].Message
	if err := s.Err(); err != nil || len(second.ToolCalls) != 1 {
		t.Fatalf("step 2, flash: %d calls, Err() = %v, want one call", len(second.ToolCalls), err)
	}
	checkRequests(t, g, "step 2, flash", flash+" "+skipSignature)

	p.Model = pro
	p.Messages = append(p.Messages, second.ToParam(), openai.ToolMessage("sunny", second.ToolCalls[0].ID))
	s = c.NewStreaming(context.Background(), p)
	drain(t, s, 0)
	if err := s.Err(); err != nil || s.Text() != "Sunny in Paris." {
		t.Fatalf("step 3, pro: Text() = %q, Err() = %v, want the answer", s.Text(), err)
	}
	// Newest first: flash's call, then pro's.
	checkRequests(t, g, "step 3, pro", pro+" "+skipSignature+","+signatureOf(pro))
}

// TestGeminiUnsignedSentinelRefused checks a server that refuses the
// sentinel where the client puts it, though it reads its own signatures
// in the same field: a Gemini 3 endpoint that signs in
// extra_content.vertex and refuses extra_content.google as a member its
// schema does not know, naming extra_content. The request is sent again
// without the sentinel, and what is learnt is that the server refuses
// the sentinel, not the field: the turn asked of the model that made the
// call still gets its own signature back, and is answered. Before, the
// refusal was learnt as one of extra_content, and no signature went back
// to that server again: every later turn of a tool call was refused,
// 400.
func TestGeminiUnsignedSentinelRefused(t *testing.T) {
	const pro, flash = "gemini-3.1-pro-preview", "gemini-3-flash-preview"
	g := &geminiModels{vertex: true}
	c := tokenpace.NewClient(g.serveAs(t, "http://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/endpoints/openapi"))
	msg := firstCall(t, c.NewStreaming, flash)
	checkRequests(t, g, "first turn", flash+" ")

	s := c.NewStreaming(context.Background(), weatherTurn(pro, &msg))
	drain(t, s, 0)
	checkKind(t, s.Err(), tokenpace.KindRequest)
	if n := len(s.Timing().HTTP); n != 2 {
		t.Errorf("second turn to pro: %d HTTP requests, want 2 (the sentinel refused, then the request as the caller wrote it)", n)
	}
	checkRequests(t, g, "second turn to pro", pro+" -", pro+" -")

	secondTurn(t, c.NewStreaming, flash, msg)
	checkRequests(t, g, "second turn to flash", flash+" "+signatureOf(flash))

	s = c.NewStreaming(context.Background(), weatherTurn(pro, &msg))
	drain(t, s, 0)
	checkRequests(t, g, "second turn to pro again: no sentinel", pro+" -")
}
