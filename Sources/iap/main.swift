import IAPCommands

// The product: the stages and the operators' commands (IAPCommands).
await CommandMain.run(IAP.self)
