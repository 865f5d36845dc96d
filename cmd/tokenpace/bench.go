package main

import (
	"context"
	"fmt"
	"io"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "tokenpace bench: not built yet")
	return 1
}
