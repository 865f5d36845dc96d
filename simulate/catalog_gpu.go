package simulate

// gpuCatalog holds datasheet figures. VectorTFLOPS is the datasheet's
// non-tensor fp32 rate; PeerLinkGBs is NVLink (or Infinity Fabric) per GPU and
// direction: 600 GB/s total on A100 SXM, 900 on H100/H200 SXM, 1800 on B200,
// 896 on MI300X. PCIe cards have none. CPUs are listed as devices too: their
// "tensor" rate is the SIMD fp32 rate of all cores and their bandwidth that of
// all memory channels. Dense rates are the datasheets'
// sparse figures halved where only those are printed. GeForce fp16 rates are
// with fp32 accumulate, which inference kernels use.
var gpuCatalog = []catalogEntry[GPU]{
	{GPU{
		Name: "rtx-3090", BandwidthGBs: 936, FP16TFLOPS: 71, INT8TOPS: 284, MemoryGB: 24, HostLinkGBs: 32, VectorTFLOPS: 35.6, Memory: MemoryGDDR, Arch: ArchAmpere,
		Source: "NVIDIA Ampere GA102 GPU architecture whitepaper, table 9 (RTX 3090)",
	}, []string{"3090", "rtx3090", "geforce-rtx-3090"}},
	{GPU{
		Name: "rtx-4090", BandwidthGBs: 1008, FP16TFLOPS: 165.2, FP8TFLOPS: 330.3, INT8TOPS: 660.6, MemoryGB: 24, HostLinkGBs: 32, VectorTFLOPS: 82.6, Memory: MemoryGDDR, Arch: ArchAda,
		Source: "NVIDIA Ada Lovelace GPU architecture whitepaper, appendix A (RTX 4090)",
	}, []string{"4090", "rtx4090", "geforce-rtx-4090"}},
	{GPU{
		Name: "l4", BandwidthGBs: 300, FP16TFLOPS: 121, FP8TFLOPS: 242.5, INT8TOPS: 242.5, MemoryGB: 24, HostLinkGBs: 32, VectorTFLOPS: 30.3, Memory: MemoryGDDR, Arch: ArchAda,
		Source: "NVIDIA L4 Tensor Core GPU datasheet",
	}, []string{"nvidia-l4"}},
	{GPU{
		Name: "a10g", BandwidthGBs: 600, FP16TFLOPS: 70, INT8TOPS: 140, MemoryGB: 24, HostLinkGBs: 32, VectorTFLOPS: 31.2, Memory: MemoryGDDR, Arch: ArchAmpere,
		Source: "AWS G5 (A10G) figures as compared in baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference",
	}, []string{"a10", "nvidia-a10g"}},
	{GPU{
		Name: "l40s", BandwidthGBs: 864, FP16TFLOPS: 362.05, FP8TFLOPS: 733, INT8TOPS: 733, MemoryGB: 48, HostLinkGBs: 32, VectorTFLOPS: 91.6, Memory: MemoryGDDR, Arch: ArchAda,
		Source: "NVIDIA L40S datasheet",
	}, []string{"nvidia-l40s"}},
	{GPU{
		Name: "a100-40gb", BandwidthGBs: 1555, FP16TFLOPS: 312, INT8TOPS: 624, MemoryGB: 40, HostLinkGBs: 32, VectorTFLOPS: 19.5, PeerLinkGBs: 300, Memory: MemoryHBM, Arch: ArchAmpere,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB)",
	}, []string{"a100-40", "a100-sxm4-40gb"}},
	{GPU{
		Name: "a100-80gb", BandwidthGBs: 2039, FP16TFLOPS: 312, INT8TOPS: 624, MemoryGB: 80, HostLinkGBs: 32, VectorTFLOPS: 19.5, PeerLinkGBs: 300, Memory: MemoryHBM, Arch: ArchAmpere,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB)",
	}, []string{"a100", "a100-80", "a100-sxm4-80gb"}},
	{GPU{
		Name: "h100-pcie", BandwidthGBs: 2000, FP16TFLOPS: 756, FP8TFLOPS: 1513, INT8TOPS: 1513, MemoryGB: 80, HostLinkGBs: 64, VectorTFLOPS: 51.2, Memory: MemoryHBM, Arch: ArchHopper,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe)",
	}, []string{"h100pcie"}},
	{GPU{
		Name: "h100-sxm", BandwidthGBs: 3350, FP16TFLOPS: 989, FP8TFLOPS: 1979, INT8TOPS: 1979, MemoryGB: 80, HostLinkGBs: 64, VectorTFLOPS: 66.9, PeerLinkGBs: 450, Memory: MemoryHBM, Arch: ArchHopper,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM)",
	}, []string{"h100", "h100-sxm5", "h100sxm"}},
	{GPU{
		Name: "h200", BandwidthGBs: 4800, FP16TFLOPS: 989, FP8TFLOPS: 1979, INT8TOPS: 1979, MemoryGB: 141, HostLinkGBs: 64, VectorTFLOPS: 66.9, PeerLinkGBs: 450, Memory: MemoryHBM, Arch: ArchHopper,
		Source: "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)",
	}, []string{"h200-sxm"}},
	{GPU{
		Name: "b200", BandwidthGBs: 8000, FP16TFLOPS: 2250, FP8TFLOPS: 4500, INT8TOPS: 4500, MemoryGB: 180, HostLinkGBs: 64, VectorTFLOPS: 80, PeerLinkGBs: 900, Memory: MemoryHBM, Arch: ArchHopper,
		Source: "NVIDIA DGX B200 datasheet, per GPU (1440 GB, 64 TB/s, 72 PFLOPS fp8 sparse over 8 GPUs)",
	}, []string{"b200-sxm"}},
	{GPU{
		Name: "mi300x", BandwidthGBs: 5300, FP16TFLOPS: 1307.4, FP8TFLOPS: 2614.9, INT8TOPS: 2614.9, MemoryGB: 192, HostLinkGBs: 64, VectorTFLOPS: 163.4, PeerLinkGBs: 448, Memory: MemoryHBM, Arch: ArchCDNA,
		Source: "AMD Instinct MI300X datasheet",
	}, []string{"amd-mi300x", "mi300"}},
	{GPU{
		Name: "m2-ultra", BandwidthGBs: 800, FP16TFLOPS: 27.2, MemoryGB: 192, HostLinkGBs: 800, VectorTFLOPS: 27.2, Memory: MemoryUnified, Arch: ArchApple,
		Source: "Apple M2 Ultra press release (800 GB/s, up to 192 GB); GPU rate 76 cores x 128 ALUs x 2 FLOP x 1.398 GHz; unified memory",
	}, []string{"apple-m2-ultra", "m2ultra"}},
	{GPU{
		Name: "m4-max", BandwidthGBs: 546, FP16TFLOPS: 18.4, MemoryGB: 128, HostLinkGBs: 546, VectorTFLOPS: 18.4, Memory: MemoryUnified, Arch: ArchApple,
		Source: "Apple M4 Max press release (546 GB/s, up to 128 GB); GPU rate 40 cores x 128 ALUs x 2 FLOP x 1.8 GHz (estimate); unified memory",
	}, []string{"apple-m4-max", "m4max"}},
	{GPU{
		Name: "rtx-3090-ti", BandwidthGBs: 1008, FP16TFLOPS: 80, INT8TOPS: 320, MemoryGB: 24, HostLinkGBs: 32, VectorTFLOPS: 40, Memory: MemoryGDDR, Arch: ArchAmpere,
		Source: "NVIDIA GeForce RTX 3090 Ti specifications (1008 GB/s, 24 GB); tensor rate: GA102 full die at 1.86 GHz, fp16 with fp32 accumulate",
	}, []string{"3090ti", "3090-ti", "rtx3090ti", "geforce-rtx-3090-ti"}},
	{GPU{
		Name: "m2-pro", BandwidthGBs: 200, FP16TFLOPS: 6.8, MemoryGB: 32, HostLinkGBs: 200, VectorTFLOPS: 6.8, Memory: MemoryUnified, Arch: ArchApple,
		Source: "Apple M2 Pro press release (200 GB/s, up to 32 GB); GPU rate 19 cores x 128 ALUs x 2 FLOP x 1.398 GHz; unified memory",
	}, []string{"apple-m2-pro", "m2pro"}},
	{GPU{
		Name: "m2-pro-cpu", BandwidthGBs: 200, FP16TFLOPS: 0.9, MemoryGB: 32, HostLinkGBs: 200, VectorTFLOPS: 0.9, Memory: MemoryDRAM, Arch: ArchCPU,
		Source: "Apple M2 Pro CPU: 200 GB/s system memory; 8 performance cores x 3.5 GHz x 4 NEON FMA pipes x 4 fp32 lanes x 2 FLOP = 0.9 TFLOPS",
	}, []string{"apple-m2-pro-cpu"}},
	{GPU{
		Name: "xeon-w-3245", BandwidthGBs: 140.8, FP16TFLOPS: 3.3, MemoryGB: 384, HostLinkGBs: 140.8, VectorTFLOPS: 3.3, Memory: MemoryDRAM, Arch: ArchCPU,
		Source: "Intel Xeon W-3245 (Mac Pro 2019, 16 cores): six channels of DDR4-2933 = 140.8 GB/s; 16 cores x 3.2 GHz x 2 AVX-512 FMA x 16 lanes x 2 FLOP = 3.3 TFLOPS fp32",
	}, []string{"mac-pro-2019-cpu"}},
	{GPU{
		Name: "raspberry-pi-5", BandwidthGBs: 17.1, FP16TFLOPS: 0.154, MemoryGB: 16, HostLinkGBs: 17.1, VectorTFLOPS: 0.154, Memory: MemoryDRAM, Arch: ArchCPU,
		Source: "Raspberry Pi 5 product brief: LPDDR4X-4267, 32-bit bus = 17.1 GB/s; 4 Cortex-A76 x 2.4 GHz x 2 NEON FMA pipes x 4 fp32 lanes x 2 FLOP = 0.154 TFLOPS",
	}, []string{"pi5", "rpi5", "raspberrypi5"}},
}
