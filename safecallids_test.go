package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// A conversation whose tool call a Kimi model made, under Kimi's id
// functions.get_weather:0, carried on by a Router's second route, whose
// server takes only ids of letters, digits, '_' and '-': Anthropic's
// OpenAI SDK compatibility endpoint (400, "messages.1.content.0.tool_use.id:
// String should match pattern '^[a-zA-Z0-9_-]+$'": openai/openai-agents-python#1147,
// maximhq/bifrost#5097), or a LiteLLM proxy in front of Bedrock's
// Converse API (Bedrock's ValidationException of the toolUseId, in
// LiteLLM's 400), or a LiteLLM proxy in front of Anthropic that writes
// Anthropic's body as Python's bytes, each quote escaped (b'…':
// openai/openai-agents-python#1147). Before, the caller got that 400 (`KindRequest`), a
// failed request where the second route would have answered. The
// request is now sent again with the ids written in that form, the
// call's and the tool message's the same, and the next turn goes so from
// the start; the caller's messages keep Kimi's id, and the Kimi route,
// well again, gets it as the caller wrote it.
func TestSafeCallIDsAfterAnotherRoute(t *testing.T) {
	const kimiID = "functions.get_weather:0"
	for _, tt := range []struct {
		name, model string
		refusal     func(id string) string
	}{
		{"anthropic", "claude-sonnet-4-5", func(string) string {
			return `{"error":{"code":"invalid_request_error","message":"messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'","param":null,"type":"invalid_request_error"}}`
		}},
		{"anthropic through LiteLLM as bytes", "claude-sonnet-4-5", func(string) string {
			return `{"error":{"message":"litellm.BadRequestError: AnthropicException - b'{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0.tool_use.id: String should match pattern \\'^[a-zA-Z0-9_-]+$\\'\"}}'. Received Model Group=claude-sonnet-4-5\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`
		}},
		{"bedrock", "bedrock-claude", func(id string) string {
			return `{"error":{"message":"litellm.BadRequestError: BedrockException - {\"message\":\"1 validation error detected: Value '` + id + `' at 'messages.1.member.content.0.member.toolUse.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+\"}. Received Model Group=bedrock-claude","type":null,"param":null,"code":"400"}}`
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kimi := &idServer{id: kimiID}
			strict := &idServer{id: "toolu_01A09q90qw90lq917835lq9", pattern: map[string]func(string) string{tt.model: tt.refusal}}
			kc := openaiClient(kimi.serve(t).URL, http.DefaultClient)
			sc := openaiClient(strict.serve(t).URL, http.DefaultClient)
			r, err := tokenpace.NewRouter(tokenpace.NewClient(kc), tokenpace.Policy{},
				tokenpace.Route{Name: "kimi", Client: &kc, Model: "kimi-k2.6"},
				tokenpace.Route{Name: tt.name, Client: &sc, Model: tt.model})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			s := r.NewStreaming(ctx, weatherTurn("kimi-k2.6", nil))
			drain(t, s, 0)
			msg := s.Accumulated().Choices[0].Message
			if s.Err() != nil || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].ID != kimiID {
				t.Fatalf("first turn: calls %+v, Err %v; want one call %s", msg.ToolCalls, s.Err(), kimiID)
			}

			kimi.mu.Lock()
			kimi.fail = 2 // down for the next two turns
			kimi.mu.Unlock()
			next := weatherTurn("kimi-k2.6", &msg)
			for turn := 2; turn <= 3; turn++ {
				s = r.NewStreaming(ctx, next)
				drain(t, s, 0)
				if want := "Sunny in Paris, from " + tt.model + "."; s.Err() != nil || s.Text() != want || s.Accumulated().Choices[0].Message.Content != want {
					t.Fatalf("turn %d: %q, Err %v; want %q from the second route", turn, s.Text(), s.Err(), want)
				}
			}
			if got := next.Messages[1].OfAssistant.ToolCalls[0].OfFunction.ID; got != kimiID {
				t.Errorf("the caller's message holds id %q after the calls, want its own %q", got, kimiID)
			}
			asked := strict.asked()
			if len(asked) != 3 || asked[0] != tt.model+" "+kimiID+","+kimiID {
				t.Fatalf("the second route was asked %q; want the caller's ids first, then the same request sent again, then one request", asked)
			}
			for _, a := range asked[1:] {
				ids := strings.Split(strings.TrimPrefix(a, tt.model+" "), ",")
				if len(ids) != 2 || ids[0] != ids[1] || !safeID.MatchString(ids[0]) {
					t.Errorf("the second route was asked %q; want the call's id and the tool message's one id of letters, digits, '_' and '-'", a)
				}
			}
			if asked[1] != asked[2] {
				t.Errorf("the second and third turn named %q and %q; want the same ids each time", asked[1], asked[2])
			}

			// The Kimi route, well again, gets the caller's ids as they are.
			s = r.NewStreaming(ctx, next)
			drain(t, s, 0)
			if want := "Sunny in Paris, from kimi-k2.6."; s.Err() != nil || s.Text() != want {
				t.Errorf("fourth turn: %q, Err %v; want %q", s.Text(), s.Err(), want)
			}
			if got := kimi.asked(); got[len(got)-1] != "kimi-k2.6 "+kimiID+","+kimiID {
				t.Errorf("the Kimi route was asked %q last; want the caller's ids", got[len(got)-1])
			}
		})
	}
}
