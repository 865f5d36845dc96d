// Package trace reads public LLM serving traces and turns them into the
// load of a benchmark or of an offline simulation.
//
// Three published formats are read, and tokenpace's own CSV:
//
//   - Azure LLM inference traces (Azure/AzurePublicDataset, CC BY 4.0): CSV
//     with the header TIMESTAMP,ContextTokens,GeneratedTokens and
//     timestamps such as 2023-11-16 18:15:46.6805900 (the 2023 traces) or
//     2024-05-10 00:00:00.009930+00:00 (the 2024 week-long traces, whose
//     offset is read).
//   - BurstGPT (HPMLL/BurstGPT): CSV with the header Timestamp,Model,
//     Request tokens,Response tokens,Total tokens,Log Type; Timestamp in
//     seconds. Rows with 0 response tokens are requests that failed in the
//     traced service: they are left out and counted in Trace.Failed.
//   - Mooncake (kvcache-ai/Mooncake, FAST'25 release): JSON lines with
//     timestamp (ms), input_length, output_length and hash_ids, one id per
//     512-token block of the prompt; the same id is the same block, so the
//     trace says which prompts share which prefixes.
//   - tokenpace CSV: arrival_s,prompt_tokens,output_tokens[,prefix_id], as
//     simulate.ReadTrace reads it.
//
// Read detects the format from the first line. A malformed line is an
// error naming the file and line and what was expected; nothing is skipped
// silently. A Trace can be cut to a window and sped up, and yields
// simulate.Arrival values whose prefix keys reproduce the traced sharing
// (see Trace.Arrivals).
package trace
