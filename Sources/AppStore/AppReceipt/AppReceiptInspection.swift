import Foundation
import X509

/// Everything `iap receipt inspect` shows: what a receipt says and which checks hold.
///
/// Unlike ``AppReceiptVerifier/verify(der:)``, which stops at the first failure, inspection runs
/// every check it can, so an operator sees the content of a receipt whose chain has expired.
public struct AppReceiptInspection: Codable, Hashable, Sendable {
    /// One check's result.
    public struct Check: Codable, Hashable, Sendable {
        /// Whether it holds.
        public var ok: Bool
        /// The ``AppReceiptError/Reason`` raw value when it does not.
        public var reason: String?
        /// Why not, or what was checked.
        public var detail: String?

        static let passed = Check(ok: true)
        static func failed(_ error: AppReceiptError) -> Check {
            Check(ok: false, reason: error.reason.rawValue, detail: error.message)
        }
    }

    /// What the receipt says, when its content could be read (even if the signature fails).
    public var receipt: AppReceipt?
    /// The container's certificates, subjects as text, signer first.
    public var certificates: [String]
    /// The signature over the content.
    public var signature: Check
    /// The chain (or, for an Xcode receipt, the trusted Xcode certificate); nil when not reached.
    public var chain: Check?
    /// The moment the chain was checked at.
    public var validatedAt: Date?
    /// The bundle id; nil when none was asked for.
    public var bundle: Check?
    /// Whether every check holds: what ``AppReceiptVerifier/verify(der:)`` would accept.
    public var valid: Bool

    enum CodingKeys: String, CodingKey {
        case receipt, certificates, signature, chain, bundle, valid
        case validatedAt = "validated_at"
    }
}

extension AppReceiptVerifier {
    /// Runs every check on `der` that its state allows and reports each.
    /// - Parameter der: The PKCS #7 container.
    /// - Returns: The report; ``AppReceiptInspection/valid`` is false when any check fails.
    public func inspect(der: [UInt8]) async -> AppReceiptInspection {
        let container: PKCS7SignedData
        do {
            container = try Self.container(der)
        } catch {
            return AppReceiptInspection(certificates: [], signature: .failed(error), valid: false)
        }
        var report = AppReceiptInspection(
            certificates: [], signature: .passed, valid: false)
        var signer: Certificate?
        do {
            signer = try container.verifySignature()
        } catch {
            report.signature = .failed(error)
        }
        let signerFirst =
            container.certificates.filter { $0 == signer } + container.certificates.filter { $0 != signer }
        report.certificates = signerFirst.map { "\($0.subject)" }
        do {
            report.receipt = try AppReceiptPayload.decode(container.content ?? [])
        } catch {
            if report.signature.ok { report.signature = .failed(error) }
        }
        guard let receipt = report.receipt else { return report }
        if let signer {
            report.chain = await chainCheck(signer, in: container, receipt: receipt)
            report.validatedAt = try? validationTime(for: receipt)
        }
        if configuration.bundleID != nil {
            do {
                try checkBundle(receipt)
                report.bundle = .passed
            } catch {
                report.bundle = .failed(error)
            }
        }
        report.valid = report.signature.ok && report.chain?.ok == true && report.bundle?.ok != false
        return report
    }

    private func chainCheck(
        _ signer: Certificate, in container: PKCS7SignedData, receipt: AppReceipt
    ) async -> AppReceiptInspection.Check {
        do {
            if receipt.environment == .xcode {
                try checkXcode(signer)
            } else {
                try await checkChain(signer, in: container, receipt: receipt)
            }
            return .passed
        } catch {
            return .failed(error)
        }
    }
}
