package wire

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Foreign takes out the reasoning items another deployment made, by id
// or by encrypted content, and leaves the rest of the body as it was.
func TestReasoningItemsForeign(t *testing.T) {
	a := Sealer{Server: "a.test:443", Model: "gpt-5", Account: "1"}
	b := Sealer{Server: "b.test:443", Model: "gpt-5", Account: "2"}
	var r ReasoningItems
	r.Keep(a, "rs_a1", "sealA1")
	r.Keep(b, "rs_b1", "sealB1")
	r.Keep(a, "rs_both", "")
	r.Keep(b, "rs_both", "") // two made it: names neither
	body := `{"model":"gpt-5","input":[{"type":"message","role":"user","content":"q"},` +
		`{"type":"reasoning","id":"rs_a1","summary":[],"encrypted_content":"sealA1"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"sealB1"},` +
		`{"type":"reasoning","id":"rs_b1","summary":[]},` +
		`{"type":"reasoning","id":"rs_both","summary":[]},` +
		`{"type":"reasoning","id":"rs_x","summary":[],"encrypted_content":"unknown"}],"reasoning":{"effort":"low"}}`
	for _, tc := range []struct {
		to      Sealer
		want    string
		dropped int
	}{
		{a, `{"model":"gpt-5","input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"reasoning","id":"rs_a1","summary":[],"encrypted_content":"sealA1"},` +
			`{"type":"reasoning","id":"rs_both","summary":[]},` +
			`{"type":"reasoning","id":"rs_x","summary":[],"encrypted_content":"unknown"}],"reasoning":{"effort":"low"}}`, 2},
		{Sealer{Server: "a.test:443", Model: "gpt-5-mini", Account: "1"}, `{"model":"gpt-5","input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"reasoning","id":"rs_both","summary":[]},` +
			`{"type":"reasoning","id":"rs_x","summary":[],"encrypted_content":"unknown"}],"reasoning":{"effort":"low"}}`, 3},
	} {
		got, n := r.Foreign(tc.to, []byte(body))
		if string(got) != tc.want || n != tc.dropped {
			t.Errorf("Foreign(%v) = %s, %d\nwant %s, %d", tc.to, got, n, tc.want, tc.dropped)
		}
	}
	for _, body := range []string{
		`{"model":"gpt-5","messages":[{"role":"user","content":"reasoning"}]}`,
		`{"model":"gpt-5","input":"reasoning"}`,
		`{"model":"gpt-5","input":[{"type":"reasoning","id":"rs_a1","summary":[]}]}`,
	} {
		if got, n := r.Foreign(a, []byte(body)); string(got) != body || n != 0 {
			t.Errorf("Foreign(a, %s) = %s, %d; want it as it was", body, got, n)
		}
	}
	var none *ReasoningItems
	if got, n := none.Foreign(a, []byte(body)); string(got) != body || n != 0 {
		t.Errorf("nil Foreign changed the body")
	}
}

// Account tells two keys apart and keeps neither.
func TestAccount(t *testing.T) {
	k1 := Account(http.Header{"Authorization": {"Bearer k1"}})
	k2 := Account(http.Header{"Api-Key": {"k2"}})
	if k1 == "" || k2 == "" || k1 == k2 || Account(http.Header{}) != "" {
		t.Errorf("Account = %q, %q, %q", k1, k2, Account(http.Header{}))
	}
	if k1 == "Bearer k1" || len(k1) != 16 {
		t.Errorf("Account(Bearer k1) = %q, want a digest", k1)
	}
}

// The store stays within its bound, the oldest forgotten first.
func TestReasoningItemsBound(t *testing.T) {
	var r ReasoningItems
	a := Sealer{Server: "a"}
	for i := range maxReasoningItems + 10 {
		r.Keep(a, "rs_"+strconv.Itoa(i), "")
	}
	if len(r.by) != maxReasoningItems {
		t.Errorf("kept %d, want %d", len(r.by), maxReasoningItems)
	}
}

// SealerOf: Azure OpenAI seals with the resource, OpenAI with the
// account, any other server with the account and the model.
func TestSealerOf(t *testing.T) {
	for _, tc := range []struct {
		server, model, account string
		want                   Sealer
	}{
		{"east.openai.azure.com:443", "gpt-5", "t1", Sealer{Server: "east.openai.azure.com:443"}},
		{"east.cognitiveservices.azure.com:443", "gpt-5-mini", "t2", Sealer{Server: "east.cognitiveservices.azure.com:443"}},
		{"res.services.ai.azure.com:443", "gpt-5", "t1", Sealer{Server: "res.services.ai.azure.com:443"}},
		{"API.OpenAI.com:443", "gpt-5-mini", "k", Sealer{Server: "API.OpenAI.com:443", Account: "k"}},
		{"litellm.test:4000", "gpt-5-east", "k", Sealer{Server: "litellm.test:4000", Model: "gpt-5-east", Account: "k"}},
		{"bedrock-mantle.us-east-2.api.aws:443", "openai.gpt-5.6-sol", "k", Sealer{Server: "bedrock-mantle.us-east-2.api.aws:443", Model: "openai.gpt-5.6-sol", Account: "k"}},
		{"api.openai.com.evil.test:443", "gpt-5", "k", Sealer{Server: "api.openai.com.evil.test:443", Model: "gpt-5", Account: "k"}},
	} {
		if got := SealerOf(tc.server, tc.model, tc.account); got != tc.want {
			t.Errorf("SealerOf(%q, %q, %q) = %v, want %v", tc.server, tc.model, tc.account, got, tc.want)
		}
	}
}

// The calls and, at OpenAI and Azure OpenAI, the message that followed a
// reasoning item taken out go without their ids, which those servers
// pair with it; the rest stays as it was.
func TestReasoningItemsForeignFollowers(t *testing.T) {
	b := Sealer{Server: "b.test:443", Model: "gpt-5", Account: "2"}
	var r ReasoningItems
	r.Keep(b, "rs_b1", "sealB1")
	body := `{"input":[{"type":"message","role":"user","content":"q"},` +
		`{"type":"reasoning","id":"rs_b1","summary":[],"encrypted_content":"sealB1"},` +
		`{"type":"function_call","id":"fc_b1","call_id":"call_1","name":"f","arguments":"{}"},` +
		`{"type":"message","id":"msg_b1","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[]}]},` +
		`{"type":"function_call_output","call_id":"call_1","output":"o"},` +
		`{"type":"function_call","id":"fc_x","call_id":"call_2","name":"f","arguments":"{}"}]}`
	rest := `{"type":"function_call_output","call_id":"call_1","output":"o"},` +
		`{"type":"function_call","id":"fc_x","call_id":"call_2","name":"f","arguments":"{}"}]}`
	for _, tc := range []struct {
		to   Sealer
		want string
	}{
		{Sealer{Server: "api.openai.com:443", Account: "1"}, `{"input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[]}]},` + rest},
		{Sealer{Server: "vllm.test:8000", Model: "gpt-oss"}, `{"input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},` +
			`{"type":"message","id":"msg_b1","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[]}]},` + rest},
	} {
		if got, n := r.Foreign(tc.to, []byte(body)); string(got) != tc.want || n != 1 {
			t.Errorf("Foreign(%v) = %s, %d\nwant %s, 1", tc.to, got, n, tc.want)
		}
	}
	if got, n := r.Foreign(b, []byte(body)); string(got) != body || n != 0 {
		t.Errorf("Foreign(b) = %s, %d; want the body as it was", got, n)
	}
}

// A server's item id, however long, is kept within a key's bound.
func TestReasoningItemsLongID(t *testing.T) {
	var r ReasoningItems
	a := Sealer{Server: "a"}
	long := "rs_" + strings.Repeat("x", 1<<20)
	r.Keep(a, long, "")
	for k := range r.by {
		if len(k) > 68 {
			t.Errorf("kept a key of %d bytes", len(k))
		}
	}
	body := `{"input":[{"type":"reasoning","id":"` + long + `","summary":[]}]}`
	if _, n := r.Foreign(Sealer{Server: "b"}, []byte(body)); n != 1 {
		t.Errorf("Foreign took out %d items, want the long id's", n)
	}
}
