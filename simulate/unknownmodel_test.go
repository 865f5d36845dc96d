package simulate_test

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

// An unknown model gets OpenAI's answer on every endpoint: 404 with type
// invalid_request_error and code model_not_found, so that a client that
// tells the error apart by its type or code does so as against OpenAI.
func TestUnknownModelError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}))
		bodies := map[string]string{
			"/v1/chat/completions": `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`,
			"/v1/completions":      `{"model":"nope","prompt":"hi"}`,
			"/v1/responses":        `{"model":"nope","input":"hi"}`,
		}
		check := func(path string, status int, body string) {
			t.Helper()
			var e struct {
				Error struct {
					Message, Type string
					Code          *string
				}
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("%s: body %q: %v", path, body, err)
			}
			if status != 404 || e.Error.Type != "invalid_request_error" || e.Error.Code == nil || *e.Error.Code != "model_not_found" {
				t.Errorf("%s: %d %s, want 404 of type invalid_request_error, code model_not_found", path, status, body)
			}
		}
		for path, body := range bodies {
			x := post(t, ts, path, body, nil)
			check(path, x.status, x.body)
		}
		status, body := get(t, ts, "/v1/models/nope")
		check("/v1/models/nope", status, body)
	})
}
