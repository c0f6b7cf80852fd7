import Foundation
import X509

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
