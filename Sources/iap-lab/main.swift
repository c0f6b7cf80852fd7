import IAPCommands

// The lab: benchmarks, fault drills and the stub stores, beside the product (`iap`).
await CommandMain.run(Lab.self)
