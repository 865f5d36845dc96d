package main

import (
	"fmt"
	"io"
)

func runPredict(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "tokenpace predict: not built yet")
	return 1
}
