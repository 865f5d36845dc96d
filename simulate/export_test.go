package simulate

// AffinityPrefixes reports how many prefixes c's affinity router
// remembers; 0 for other routers.
func AffinityPrefixes(c *Cluster) int {
	if a, ok := c.router.(*affinity); ok {
		return len(a.home) + len(a.old)
	}
	return 0
}
