// Package plan is the planning layer over package simulate: it answers
// questions about deployments by running simulate's latency model
// offline, never by serving.
//
//   - Search looks through a Space of deployments (GPU × tensor-parallel
//     degree × precision × max batch × routing × replicas) for the
//     cheapest that meets an SLO on a workload. Roofline bounds prune what
//     cannot meet it; the rest is simulated with simulate.Run on a
//     simulate.Cluster and judged with simulate.Measure, only as far as it
//     can still beat the best found. Input.Evaluate judges one
//     configuration without pruning. A candidate costs its GPUs' rent (per
//     hour online, to finish for a batch job) at the caller's Prices or
//     at DefaultPrices, documented list prices (ListPrices).
//   - An SLO bounds percentiles of TTFT, TPOT and E2E (and, for a batch
//     job, the time to finish); Measure summarises an offline run's
//     results, and SLO.Check lists the limits they miss.
//   - DesignCalibration picks the loads (closed loops of simulate.Scenario)
//     that identify a deployment's bandwidth share, tensor share and step
//     overhead; Calibrate fits them to measured figures
//     (simulate.Observation) by simulate.Predict and reports each constant
//     with its band and what stays confounded.
//
// The package imports simulate and its exported API only: deployments,
// workloads, the engine, the offline driver and Predict. Package
// simulate never imports plan, so the server, the engine and the latency
// model build and test without it; the latency model's own fit and its
// fidelity check against published measurements (Predict, Observation,
// ErrorBands) stay in simulate, beside the internals they tune.
package plan
