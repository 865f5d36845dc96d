package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestPlamoMarkupOnlyForOfferedTools: PLaMo's markup in an answer's text
// becomes a tool call only when the request offered a function of that
// name. An answer that quotes the markup (a model explaining PLaMo's
// template, code that parses it) to a request that offered no tool, or
// none of that name, reaches the caller as the text it is, finished
// "stop", streamed or whole and through a Router alike: a call the caller
// never offered would have its agent loop run a tool it does not have.
func TestPlamoMarkupOnlyForOfferedTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadConformance(t)["plamo-toolcall-markup-as-text"].recording
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(rec)(w, r) })
		oc := openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
		router, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{Continue: true}, tokenpace.Route{Name: "plamo", Model: "plamo-3.0-prime-beta"})
		if err != nil {
			t.Fatal(err)
		}
		tool := func(name string) openai.ChatCompletionToolUnionParam {
			return openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: name})
		}
		for _, tc := range []struct {
			name      string
			tools     []openai.ChatCompletionToolUnionParam
			wantCalls int
		}{
			{"no tools", nil, 0},
			{"another tool", []openai.ChatCompletionToolUnionParam{tool("write")}, 0},
			{"the tool offered", []openai.ChatCompletionToolUnionParam{tool("write"), tool("read")}, 1},
		} {
			p := chat("plamo-3.0-prime-beta", 512)
			p.Tools = tc.tools
			for via, s := range map[string]*tokenpace.Stream[openai.ChatCompletionChunk]{
				"client": tokenpace.NewClient(oc).NewStreaming(context.Background(), p),
				"router": router.NewStreaming(context.Background(), p),
			} {
				readAll(t, s)
				acc := s.Accumulated()
				if s.Err() != nil || len(acc.Choices) != 1 {
					t.Fatalf("%s, %s: Err() = %v, %d choices", tc.name, via, s.Err(), len(acc.Choices))
				}
				m, finish := acc.Choices[0].Message, acc.Choices[0].FinishReason
				switch {
				case tc.wantCalls == 0 && (len(m.ToolCalls) != 0 || finish != "stop" || !strings.Contains(m.Content, "<|plamo:begin_tool_request:plamo|>")):
					t.Errorf("%s, %s: Accumulated() = %q, %d calls, finish %q; want the text as sent, no call, \"stop\"", tc.name, via, m.Content, len(m.ToolCalls), finish)
				case tc.wantCalls == 1 && (len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "read" || finish != "tool_calls" || m.Content != "I will inspect the file."):
					t.Errorf("%s, %s: Accumulated() = %q, %d calls, finish %q; want the call read, \"tool_calls\"", tc.name, via, m.Content, len(m.ToolCalls), finish)
				}
			}
		}
		hc.CloseIdleConnections()
	})
}
