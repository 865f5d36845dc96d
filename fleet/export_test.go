package fleet

// ReserveScript is the reservation script, for the benchmark that splits
// an admission's cost.
var ReserveScript = reserve
