package fleet

// maxOutcomeRuns bounds the outcomes waiting to be recorded: runs of
// equal outcomes of one generation merge, so it takes this many
// alternations between success and failure, all while Redis is slow to
// answer, to reach it.
const maxOutcomeRuns = 1024

// outcomeRun is n successes (n > 0) or -n failures (n < 0) of requests
// allowed in generation gen, in the order they ended.
type outcomeRun struct {
	gen int64
	n   int64
}

// outcomes is a batch of a Breaker's outcomes, in order, and the count
// of those dropped because the batch was full (the oldest go first), to
// be reported, never lost silently; and the probes of a half-open state
// whose outcome its breaker leaves out, which give their places back:
// per generation, how many (n > 0).
type outcomes struct {
	runs    []outcomeRun
	dropped int64
	freed   []outcomeRun
}

// fold returns the batcher update that adds an outcome of generation
// gen.
func foldOutcome(gen int64, failed bool) func(*outcomes) {
	return func(o *outcomes) {
		d := int64(1)
		if failed {
			d = -1
		}
		if n := len(o.runs); n > 0 && o.runs[n-1].gen == gen && (o.runs[n-1].n > 0) == (d > 0) {
			o.runs[n-1].n += d
			return
		}
		if len(o.runs) == maxOutcomeRuns {
			o.dropped += abs(o.runs[0].n)
			o.runs = append(o.runs[:0], o.runs[1:]...)
		}
		o.runs = append(o.runs, outcomeRun{gen: gen, n: d})
	}
}

// foldFreed returns the batcher update that gives back the place of a
// probe allowed in generation gen. Places of one generation merge, and
// a generation changes only in Redis, so the batch stays small.
func foldFreed(gen int64) func(*outcomes) {
	return func(o *outcomes) {
		for i := range o.freed {
			if o.freed[i].gen == gen {
				o.freed[i].n++
				return
			}
		}
		o.freed = append(o.freed, outcomeRun{gen: gen, n: 1})
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
