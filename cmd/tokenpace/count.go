package main

import "strconv"

// count writes n and the noun, plural unless n is one: "1 request",
// "16 requests". Nouns here take an s.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
