import Foundation

/// What each Apple product id grants, loaded from `IAP_CATALOG`.
///
/// ```json
/// {"products": [
///   {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100}},
///   {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"}
/// ]}
/// ```
public struct Catalog: Codable, Hashable, Sendable {
    public var products: [Product]

    public init(products: [Product]) {
        self.products = products
    }

    /// The product with this Apple product id, if the catalog sells it.
    public func product(_ productID: String) -> Product? {
        products.first { $0.productID == productID }
    }

    /// Reads and checks a catalog file.
    /// - Throws: ``CatalogError`` naming the file and what is wrong with it.
    public static func load(path: String) throws(CatalogError) -> Catalog {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CatalogError("cannot read catalog file \(path)")
        }
        return try decode(data, source: path)
    }

    /// Decodes and checks a catalog from JSON.
    public static func decode(_ data: Data, source: String = "catalog") throws(CatalogError) -> Catalog {
        let catalog: Catalog
        do {
            catalog = try JSONDecoder().decode(Catalog.self, from: data)
        } catch {
            throw CatalogError("\(source): not a valid catalog: \(describe(error))")
        }
        try catalog.validate(source: source)
        return catalog
    }

    /// Rejects catalogs that would credit nonsense: duplicates, empty grants, absurd amounts.
    public func validate(source: String = "catalog") throws(CatalogError) {
        var seen = Set<String>()
        for product in products {
            let name = "\(source): product \(product.productID.isEmpty ? "(empty id)" : product.productID)"
            guard !product.productID.isEmpty else { throw CatalogError("\(name): product_id is empty") }
            guard seen.insert(product.productID).inserted else { throw CatalogError("\(name): listed twice") }
            guard product.kind != nil else {
                throw CatalogError(
                    "\(name): unknown type \(product.rawType) (expected one of "
                        + Product.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            if let grant = product.grant {
                guard !grant.currency.isEmpty else { throw CatalogError("\(name): grant.currency is empty") }
                guard grant.amount > 0, grant.amount <= Grant.maximumAmount else {
                    throw CatalogError("\(name): grant.amount must be 1...\(Grant.maximumAmount), got \(grant.amount)")
                }
            }
            if let entitlement = product.entitlement, entitlement.isEmpty {
                throw CatalogError("\(name): entitlement is empty")
            }
            guard product.grant != nil || product.entitlement != nil else {
                throw CatalogError("\(name): grants nothing (needs grant or entitlement)")
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A catalog that cannot be used, with the reason.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
