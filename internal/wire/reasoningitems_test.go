package wire

import (
	"net/http"
	"strconv"
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
