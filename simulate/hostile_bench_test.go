package simulate_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// tokenIDPrompt returns a non-streaming completions request whose prompt
// is n token ids.
func tokenIDPrompt(n int) string {
	var b strings.Builder
	b.WriteString(`{"model":"m","max_tokens":1,"prompt":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i % 100000))
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkTokenIDPrompt measures what a completions request whose
// prompt is a maximal array of token ids costs the server: about 4 MB of
// body, 700,000 ids.
//
//	go test -run XXX -bench TokenIDPrompt -benchmem ./simulate/
func BenchmarkTokenIDPrompt(b *testing.B) {
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := tokenIDPrompt(700_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/completions", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkManyStops measures a chat request carrying 20,000 stop
// sequences, which a server that scans for each of them pays for in CPU.
//
//	go test -run XXX -bench ManyStops -benchmem ./simulate/
func BenchmarkManyStops(b *testing.B) {
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var sb strings.Builder
	sb.WriteString(`{"model":"m","max_tokens":2048,"messages":[{"role":"user","content":"hi"}],"stop":[`)
	for i := range 20_000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"zq` + strconv.Itoa(i) + `"`)
	}
	sb.WriteString(`]}`)
	body := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
	}
}

// BenchmarkHugeChatPrompt measures a chat request whose one message is
// 4 MB of text.
//
//	go test -run XXX -bench HugeChatPrompt -benchmem ./simulate/
func BenchmarkHugeChatPrompt(b *testing.B) {
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"` + strings.Repeat("word ", 800_000) + `"}]}`
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
