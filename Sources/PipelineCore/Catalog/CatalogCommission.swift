/// What the stores keep of an app's sales, as its catalog says (`commission`), for the revenue
/// ledger's proceeds:
///
/// ```json
/// "commission": {"small_business_stores": ["apple", "google"], "standard_bp": 3000, "reduced_bp": 1500}
/// ```
///
/// Rates in basis points (hundredths of a percent): the standard rate (30 % when omitted), and
/// the reduced one (15 %) that every sale pays in a store whose small-business program the
/// developer is in (Apple's App Store Small Business Program, Google Play's 15 % service fee
/// tier, …), and a subscription's periods a year or more after its first purchase.
public struct CatalogCommission: Codable, Hashable, Sendable {
    public var smallBusinessStores: [String]?
    public var standardBasisPoints: Int?
    public var reducedBasisPoints: Int?

    public init(smallBusinessStores: [String]? = nil, standardBasisPoints: Int? = nil, reducedBasisPoints: Int? = nil) {
        self.smallBusinessStores = smallBusinessStores
        self.standardBasisPoints = standardBasisPoints
        self.reducedBasisPoints = reducedBasisPoints
    }

    enum CodingKeys: String, CodingKey {
        case smallBusinessStores = "small_business_stores"
        case standardBasisPoints = "standard_bp"
        case reducedBasisPoints = "reduced_bp"
    }

    /// Rejects a rate outside 0-100 % and a store that is no store id.
    func validate(source: String) throws(CatalogError) {
        for (name, rate) in [("standard_bp", standardBasisPoints), ("reduced_bp", reducedBasisPoints)] {
            if let rate, !(0...10_000).contains(rate) {
                throw CatalogError("\(source): commission \(name) \(rate) is not 0-10000 (hundredths of a percent)")
            }
        }
        for store in smallBusinessStores ?? []
        where !(1...32).contains(store.utf8.count)
            || !store.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        {
            throw CatalogError("\(source): commission small_business_stores: '\(store.prefix(40))' is not a store id")
        }
    }
}
