package tokenpace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
	"strings"
	"testing"
)

// gzipRun returns a gzip body of one member (RFC 1952) that inflates to
// prefix followed by n copies of the byte c. It is written by hand, in one
// deflate block of fixed Huffman codes (RFC 1951, 3.2.5 and 3.2.6): prefix
// and c as literals, then the run as matches of 258 bytes at distance 1.
// compress/gzip takes tens of seconds to find those matches in a run of
// 128 MiB under the race detector; this takes a few milliseconds, and the
// body is still a single member that any gzip reader inflates whole.
func gzipRun(prefix string, c byte, n int) []byte {
	var w deflateBits
	w.put(1, 1) // BFINAL: the only block
	w.put(1, 2) // BTYPE 01: fixed Huffman codes
	for i := range len(prefix) {
		w.literal(prefix[i])
	}
	left := n
	if left > 0 {
		w.literal(c)
		left--
	}
	for ; left >= 258; left -= 258 {
		w.code(0b11000101, 8) // length code 285: 258 bytes, no extra bits
		w.code(0, 5)          // distance code 0: distance 1, no extra bits
	}
	for ; left > 0; left-- {
		w.literal(c)
	}
	w.code(0, 7) // end of block (256)
	w.flush()

	crc := crc32.ChecksumIEEE([]byte(prefix))
	run := bytes.Repeat([]byte{c}, 1<<20)
	for left := n; left > 0; left -= len(run) {
		crc = crc32.Update(crc, crc32.IEEETable, run[:min(left, len(run))])
	}
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff} // magic, deflate, no flags, no time, unknown OS
	out = append(out, w.out...)
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(len(prefix)+n))
}

// deflateBits packs a deflate stream: data elements from the least
// significant bit of each byte, Huffman codes from their most significant
// bit (RFC 1951, 3.1.1).
type deflateBits struct {
	out  []byte
	acc  uint64
	nacc uint
}

// put appends the n low bits of v, least significant first.
func (w *deflateBits) put(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code appends a Huffman code of n bits, most significant first.
func (w *deflateBits) code(v uint64, n uint) {
	w.put(bits.Reverse64(v)>>(64-n), n)
}

// literal appends b's fixed Huffman code: 8 bits from 00110000 for 0–143,
// 9 bits from 110010000 for 144–255.
func (w *deflateBits) literal(b byte) {
	if b < 144 {
		w.code(0b00110000+uint64(b), 8)
		return
	}
	w.code(0b110010000+uint64(b-144), 9)
}

// flush pads the last byte with zero bits.
func (w *deflateBits) flush() {
	if w.nacc > 0 {
		w.put(0, 8-w.nacc)
	}
}

// gzipRun's bodies inflate, through compress/gzip, to what it was asked
// for: runs shorter than a match, a match's length, and every remainder
// after whole matches; bytes of 8-bit and of 9-bit literal codes.
func TestGzipRun(t *testing.T) {
	for _, tt := range []struct {
		prefix string
		c      byte
		n      int
	}{
		{"", 'x', 0}, {"ab", 'x', 1}, {`{"error":`, 'x', 259}, {"é", 200, 258*3 + 100}, {"\xff\x00", 0, 258*40 + 257}, {"", 'y', 1<<20 + 5},
	} {
		zr, err := gzip.NewReader(bytes.NewReader(gzipRun(tt.prefix, tt.c, tt.n)))
		if err != nil {
			t.Fatalf("gzipRun(%q, %q, %d): %v", tt.prefix, tt.c, tt.n, err)
		}
		got, err := io.ReadAll(zr)
		want := tt.prefix + strings.Repeat(string([]byte{tt.c}), tt.n)
		if err != nil || string(got) != want {
			t.Errorf("gzipRun(%q, %q, %d) inflates to %d bytes (equal: %v), error %v; want %d bytes", tt.prefix, tt.c, tt.n, len(got), string(got) == want, err, len(want))
		}
	}
}
