import Amazon
import Foundation
import IAPCommands

// The lab: benchmarks, fault drills and the stub stores, beside the product (`iap`).
// `iap-lab iap <command>` runs the product's command as the lab's: then, and only in this
// executable, the stub SNS's certificates under IAP_LAB_SNS_CERTIFICATES are trusted beside
// Amazon's (the product's `iap` trusts Amazon SNS's alone).
if let prefix = ProcessInfo.processInfo.environment[Lab.snsCertificatesVariable], !prefix.isEmpty {
    SNSCertificateTrust.trustLab(prefix: prefix)
}
await CommandMain.run(Lab.self)
