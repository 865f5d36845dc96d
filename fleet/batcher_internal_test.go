package fleet

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// A batcher sends what gathered batchLinger after the first update, in
// one batch; Close sends what is pending at once, without waiting for
// the linger. Virtual time.
func TestBatcherLingerAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		type sent struct {
			at  time.Duration
			sum int
		}
		var got []sent
		q := batcher[int]{send: func(n int, _ func(error)) { got = append(got, sent{time.Since(start), n}) }}
		add := func(n int) {
			if !q.add(func(sum *int) { *sum += n }) {
				t.Fatalf("add(%d) before close = false, want true", n)
			}
		}
		add(1)
		add(2)
		time.Sleep(batchLinger / 2)
		add(3)
		synctest.Wait()
		time.Sleep(batchLinger)
		synctest.Wait()
		add(4)
		q.close()
		if d := time.Since(start); d != batchLinger*3/2 {
			t.Errorf("close returned at %v, want %v (at once)", d, batchLinger*3/2)
		}
		want := []sent{{batchLinger, 6}, {batchLinger * 3 / 2, 4}}
		if !slices.Equal(got, want) {
			t.Fatalf("batches sent = %v, want %v", got, want)
		}
		if q.add(func(*int) {}) {
			t.Fatalf("add after close = true, want false")
		}
	})
}
