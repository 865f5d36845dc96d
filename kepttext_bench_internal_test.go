package tokenpace

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// BenchmarkKeptText measures what a Router keeping a call's text (for a
// continuation or a Validator) costs per chunk of a stream without
// refinement steps: appendContent into keptText, next to the same
// appends into a strings.Builder, the form the text was kept in before
// a step could be cut back to where its run began. Batches of 16 chunks
// of a word each, 1,024 chunks per stream.
//
//	go test -run '^$' -bench BenchmarkKeptText -benchmem -count 5 .
func BenchmarkKeptText(b *testing.B) {
	const n, batch = 1024, 16
	chunks := make([]arrived, n)
	for i := range chunks {
		c := &openai.ChatCompletionChunk{Choices: []openai.ChatCompletionChunkChoice{{Delta: openai.ChatCompletionChunkChoiceDelta{Content: " word"}}}}
		chunks[i] = arrived{Event: codec.Event{Chunk: c, Orig: c}}
	}
	b.Run("keptText", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var k keptText
			for i := 0; i < n; i += batch {
				appendContent(&k, chunks[i:i+batch])
			}
			if k.Len() != 5*n {
				b.Fatalf("Len() = %d, want %d", k.Len(), 5*n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	})
	b.Run("builder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s strings.Builder
			for i := 0; i < n; i += batch {
				appendBuilder(&s, chunks[i:i+batch])
			}
			if s.Len() != 5*n {
				b.Fatalf("Len() = %d, want %d", s.Len(), 5*n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	})
}

// appendBuilder is appendContent as it was with the text kept in a
// strings.Builder, a step emptying it whole: the baseline.
func appendBuilder(b *strings.Builder, chunks []arrived) {
	for i := range chunks {
		for j := range chunks[i].Chunk.Choices {
			if ch := &chunks[i].Chunk.Choices[j]; ch.Index == 0 {
				if chunks[i].Frame && ch.Delta.Content != "" {
					b.Reset()
				}
				b.WriteString(ch.Delta.Content)
			}
		}
	}
}
