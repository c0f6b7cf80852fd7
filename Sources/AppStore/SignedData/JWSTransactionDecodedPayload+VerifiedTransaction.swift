import PipelineCore

extension JWSTransactionDecodedPayload {
    /// This transaction as the pipeline credits it.
    ///
    /// `revocationDate` becomes the cancellation date, `type` the product type; the quantity is
    /// 1 when Apple leaves it out, and the original transaction id is the transaction's own when absent.
    /// - Returns: `nil` without a `transactionId` or `productId`: nothing could be credited.
    public func verifiedTransaction() -> VerifiedTransaction? {
        guard let transactionId, !transactionId.isEmpty, let productId, !productId.isEmpty else { return nil }
        return VerifiedTransaction(
            transactionID: transactionId,
            originalTransactionID: originalTransactionId ?? transactionId,
            productID: productId,
            quantity: quantity ?? 1,
            purchaseDate: purchaseDate,
            expiresDate: expiresDate,
            cancellationDate: revocationDate,
            appAccountToken: appAccountToken,
            productType: rawType,
            // A prorated refund takes back its share; a full one (or none) all of it.
            revocationPercentage: revocationType == "REFUND_PRORATED" ? revocationPercentage : nil,
            appTransactionID: appTransactionId, offerPeriod: offerPeriod, billingPlanType: billingPlanType,
            commitmentExpiresDate: commitmentInfo?.commitmentExpiresDate,
            isUpgraded: isUpgraded == true ? true : nil, offerType: offerType.map(Self.offerName),
            offerID: offerIdentifier,
            ownershipType: rawInAppOwnershipType == "PURCHASED" ? nil : rawInAppOwnershipType,
            // Apple's `price` is one unit's, in milli-units of `currency`.
            priceMicros: price.flatMap { milli in
                let (unit, overflow) = milli.multipliedReportingOverflow(by: 1000)
                let (total, again) = unit.multipliedReportingOverflow(by: Int64(quantity ?? 1))
                return overflow || again || currency == nil ? nil : total
            }, currency: price == nil ? nil : currency, country: storefront
        )
    }

    /// Apple's offer type in the pipeline's words.
    static func offerName(_ type: OfferType) -> String {
        switch type {
        case .introductoryOffer: "introductory"
        case .promotionalOffer: "promotional"
        case .offerCode: "offer_code"
        case .winBackOffer: "win_back"
        }
    }
}
