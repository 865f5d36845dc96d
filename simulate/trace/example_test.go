package trace_test

import (
	"fmt"
	"strings"

	"github.com/tokenpace/tokenpace/simulate/trace"
)

func Example() {
	in := `{"timestamp": 0, "input_length": 1100, "output_length": 40, "hash_ids": [0, 1, 2]}
{"timestamp": 500, "input_length": 1200, "output_length": 60, "hash_ids": [0, 1, 3]}
`
	tr, err := trace.Read(strings.NewReader(in), "example.jsonl", trace.Auto)
	if err != nil {
		fmt.Println(err)
		return
	}
	fast, _ := tr.Speedup(2)
	for _, a := range fast.Arrivals() {
		fmt.Println(a.At, a.Request.PromptTokens, a.Request.OutputTokens, a.Request.PrefixKey, a.Request.PrefixTokens)
	}
	// Output:
	// 0s 1100 40 blocks:0.1 1024
	// 250ms 1200 60 blocks:0.1 1024
}

func ExampleRead_malformed() {
	in := "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396\n"
	_, err := trace.Read(strings.NewReader(in), "azure.csv", trace.Auto)
	fmt.Println(err)
	// Output:
	// azure.csv:3: 2 fields, want 3 as in the header
}
