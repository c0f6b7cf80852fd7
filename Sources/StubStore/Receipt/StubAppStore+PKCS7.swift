import AppStore
import Foundation

extension StubAppStore {
    /// The chain this store signs PKCS #7 receipts with, made on first use. Its ``ReceiptCertificateAuthority/rootDER``
    /// is what a validator in `local` mode trusts instead of Apple Inc. Root CA
    /// (`GET /stub/receipt-root`, `IAP_RECEIPT_ROOT_CA`).
    ///
    /// Valid from 2001 for ten years from now, so receipts with the stub's default creation
    /// date (2023) and fresh ones both verify at their creation date.
    public var receiptAuthority: ReceiptCertificateAuthority {
        pkcs7Authority.withLock { authority in
            if let authority { return authority }
            // RSA key generation and certificate building fail only if the crypto library does.
            let made = try! ReceiptCertificateAuthority(
                notBefore: Date(timeIntervalSince1970: 978_307_200),
                notAfter: configuration.now().addingTimeInterval(10 * 365 * 86_400))
            authority = made
            return made
        }
    }

    /// Signs `receipt` as Apple signs app receipts, a PKCS #7 container, under ``receiptAuthority``.
    /// - Parameter receipt: The receipt to issue; its failure knobs (`failFirst`, ...) are not
    ///   part of a real receipt and are left out.
    /// - Returns: Its base64 `receipt-data`.
    public func issuePKCS7(_ receipt: StubReceipt) -> String {
        countMint()
        // Serializing and signing values of these types fails only if the crypto library does.
        return Data(try! receiptAuthority.sign(receipt.appReceipt)).base64EncodedString()
    }

    /// `receiptData` as a ``StubReceipt`` when it is a PKCS #7 receipt signed by this store's
    /// authority or under one of ``StubStoreConfiguration/receiptRoots`` (whatever its bundle id:
    /// checking that is the verifier's business); otherwise the
    /// status Apple answers: `21003` for a receipt that reads but is not this store's (another
    /// chain, a bad signature), `21002` for one that does not read.
    func pkcs7Receipt(_ receiptData: String) async -> Result<StubReceipt, StubReceiptError> {
        // Until this store mints PKCS #7 receipts none is its own; Apple's root still tells
        // a well-formed receipt from noise.
        let root = pkcs7Authority.withLock { $0?.rootDER } ?? AppReceiptVerifier.appleIncRootCA
        do {
            let verifier = try AppReceiptVerifier(
                configuration: .init(rootCertificates: [root] + configuration.receiptRoots, bundleID: nil))
            return .success(StubReceipt(try await verifier.verify(base64: receiptData)))
        } catch let error as AppReceiptError where error.isDecided {
            return .failure(.unauthenticated("\(error)"))
        } catch {
            return .failure(.malformed("\(error)"))
        }
    }
}

extension StubReceipt {
    /// What a PKCS #7 receipt of this receipt says.
    public var appReceipt: AppReceipt {
        AppReceipt(
            environment: environment == .sandbox ? .productionSandbox : .production, bundleID: bundleID,
            appVersion: applicationVersion, originalAppVersion: "1.0", creationDate: createdAt,
            inAppPurchases: transactions.map { transaction in
                AppReceipt.InAppPurchase(
                    productID: transaction.productID, quantity: transaction.quantity,
                    transactionID: transaction.transactionID, originalTransactionID: transaction.originalTransactionID,
                    purchaseDate: transaction.purchaseDate, originalPurchaseDate: transaction.purchaseDate,
                    expiresDate: transaction.expiresDate, cancellationDate: transaction.cancellationDate,
                    webOrderLineItemID: transaction.webOrderLineItemID.flatMap { Int64($0) })
            })
    }

    /// The receipt a verified PKCS #7 receipt holds.
    init(_ receipt: AppReceipt) {
        self.init(
            bundleID: receipt.bundleID ?? "", applicationVersion: receipt.appVersion ?? "",
            environment: receipt.environment == .production ? .production : .sandbox,
            transactions: receipt.inAppPurchases.compactMap { purchase in
                guard let id = purchase.transactionID, let product = purchase.productID else { return nil }
                return StubReceipt.Transaction(
                    transactionID: id, originalTransactionID: purchase.originalTransactionID, productID: product,
                    quantity: purchase.quantity ?? 1, purchaseDate: purchase.purchaseDate ?? Date(),
                    expiresDate: purchase.expiresDate, cancellationDate: purchase.cancellationDate,
                    webOrderLineItemID: purchase.webOrderLineItemID.map(String.init))
            },
            createdAt: receipt.creationDate ?? Date())
        if receipt.environment == nil { rawEnvironment = receipt.rawEnvironment ?? "" }
    }
}
