import Foundation
import PipelineCore

extension AppReceiptVerifier {
    /// When a receipt's certificates must have been valid.
    public enum ValidationTime: Hashable, Sendable {
        /// At the receipt's creation date (field 12), as Apple intends: a receipt stays good
        /// after its signing certificate expires, and every receipt made before 2025 has.
        case receiptCreationDate
        /// At a fixed moment (`iap receipt inspect --at`).
        case fixed(Date)
        /// Now: receipts whose chain has since expired are refused.
        case now
    }

    /// What to trust and what to require.
    public struct Configuration: Sendable {
        /// DER roots a receipt's chain may end at; Apple Inc. Root CA by default.
        public var rootCertificates: [[UInt8]]
        /// The app's bundle id (field 2); nil checks none (inspection).
        public var bundleID: String?
        /// The other apps of the pipeline (`IAP_APPS`): a receipt of one of theirs is
        /// refused as ``AppReceiptError/Reason/appMismatch``, naming it.
        public var otherApps = OtherApps.none
        /// When the chain must have been valid.
        public var validationTime: ValidationTime
        /// DER certificates Xcode signs StoreKit-testing receipts with, exported from the Xcode
        /// project; an `Xcode` receipt is accepted only when signed by one of them, byte for
        /// byte. Empty (the default) refuses every `Xcode` receipt.
        public var xcodeCertificates: [[UInt8]]

        /// Creates a configuration.
        /// - Parameters:
        ///   - rootCertificates: DER roots to trust; Apple Inc. Root CA by default.
        ///   - bundleID: The app's bundle id, or nil to check none.
        ///   - validationTime: When the chain must have been valid; the receipt's creation date by default.
        ///   - xcodeCertificates: Certificates to trust for `Xcode` receipts; none by default.
        public init(
            rootCertificates: [[UInt8]] = [AppReceiptVerifier.appleIncRootCA], bundleID: String?,
            validationTime: ValidationTime = .receiptCreationDate, xcodeCertificates: [[UInt8]] = []
        ) {
            self.rootCertificates = rootCertificates
            self.bundleID = bundleID
            self.validationTime = validationTime
            self.xcodeCertificates = xcodeCertificates
        }
    }
}
