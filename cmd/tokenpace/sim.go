package main

import (
	"context"
	"fmt"
	"io"
)

func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "tokenpace sim: not built yet")
	return 1
}
