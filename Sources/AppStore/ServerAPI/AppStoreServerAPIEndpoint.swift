import Foundation
import HTTPClient

/// One App Store Server API call, as a method, path, query and body: pure data, so URL
/// building is testable.
///
/// ```swift
/// let endpoint = AppStoreServerAPIEndpoint.transactionHistory(transactionID: "2000000123", revision: nil)
/// endpoint.url(baseURL: "https://api.storekit.itunes.apple.com")
/// // https://api.storekit.itunes.apple.com/inApps/v2/history/2000000123
/// ```
public struct AppStoreServerAPIEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// A name for logs, such as `getTransactionInfo`.
    public let name: String
    /// The path, its variable parts percent-encoded, such as `/inApps/v1/transactions/2000000123`.
    public let path: String
    /// Query parameters in order, not yet encoded.
    public let query: [QueryItem]
    /// `GET` for most calls; `POST` with a JSON body for Get Notification History.
    public let method: HTTPRequest.Method
    /// The JSON body, if the call has one.
    public let body: [UInt8]?

    /// One query parameter.
    public struct QueryItem: Hashable, Sendable {
        /// The parameter's name.
        public var name: String
        /// Its value.
        public var value: String

        /// Creates a parameter.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates an endpoint.
    /// - Parameters:
    ///   - name: A name for logs.
    ///   - path: The path, already encoded.
    ///   - query: Query parameters, not yet encoded.
    ///   - method: The HTTP method.
    ///   - body: The JSON body, if any.
    public init(
        name: String, path: String, query: [QueryItem] = [], method: HTTPRequest.Method = .get, body: [UInt8]? = nil
    ) {
        self.name = name
        self.path = path
        self.query = query
        self.method = method
        self.body = body
    }

    /// `GET /inApps/v1/transactions/{transactionId}`
    /// ([Get Transaction Info](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info)).
    public static func transactionInfo(transactionID: String) -> Self {
        Self(name: "getTransactionInfo", path: "/inApps/v1/transactions/" + encodeSegment(transactionID))
    }

    /// `GET /inApps/v2/history/{transactionId}?revision=...`
    /// ([Get Transaction History](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history)).
    public static func transactionHistory(transactionID: String, revision: String?) -> Self {
        Self(
            name: "getTransactionHistory", path: "/inApps/v2/history/" + encodeSegment(transactionID),
            query: revision.map { [QueryItem(name: "revision", value: $0)] } ?? [])
    }

    /// `GET /inApps/v1/subscriptions/{transactionId}`
    /// ([Get All Subscription Statuses](https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses)).
    public static func allSubscriptionStatuses(transactionID: String) -> Self {
        Self(name: "getAllSubscriptionStatuses", path: "/inApps/v1/subscriptions/" + encodeSegment(transactionID))
    }

    /// `GET /inApps/v1/lookup/{orderId}`
    /// ([Look Up Order ID](https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id)).
    public static func lookUpOrderID(_ orderID: String) -> Self {
        Self(name: "lookUpOrderID", path: "/inApps/v1/lookup/" + encodeSegment(orderID))
    }

    /// `GET /inApps/v2/refund/lookup/{transactionId}?revision=...`
    /// ([Get Refund History](https://developer.apple.com/documentation/appstoreserverapi/get-refund-history)).
    public static func refundHistory(transactionID: String, revision: String?) -> Self {
        Self(
            name: "getRefundHistory", path: "/inApps/v2/refund/lookup/" + encodeSegment(transactionID),
            query: revision.map { [QueryItem(name: "revision", value: $0)] } ?? [])
    }

    /// `POST /inApps/v1/notifications/history?paginationToken=...`
    /// ([Get Notification History](https://developer.apple.com/documentation/appstoreserverapi/get-notification-history)).
    public static func notificationHistory(_ request: NotificationHistoryRequest, paginationToken: String?) -> Self {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding a struct of integers, strings and a boolean cannot fail.
        let body = (try? encoder.encode(request)).map(Array.init) ?? Array("{}".utf8)
        return Self(
            name: "getNotificationHistory", path: "/inApps/v1/notifications/history",
            query: paginationToken.map { [QueryItem(name: "paginationToken", value: $0)] } ?? [], method: .post,
            body: body)
    }

    /// `PUT /inApps/v2/transactions/consumption/{transactionId}`
    /// ([Send Consumption Information](https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information)).
    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`
    /// ([Set App Account Token](https://developer.apple.com/documentation/appstoreserverapi/set-app-account-token)):
    /// binds a purchase made outside the app (an offer code redeemed in the App Store) to an
    /// account, so its later transactions and notifications carry the token. `token` is a UUID.
    public static func setAppAccountToken(originalTransactionID: String, token: UUID) -> Self {
        Self(
            name: "setAppAccountToken",
            path: "/inApps/v1/transactions/" + encodeSegment(originalTransactionID) + "/appAccountToken",
            method: .put, body: Array(#"{"appAccountToken":"\#(token.uuidString.lowercased())"}"#.utf8))
    }

    public static func sendConsumptionInformation(transactionID: String, _ information: ConsumptionInformation) -> Self
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = (try? encoder.encode(information)).map(Array.init) ?? Array("{}".utf8)
        return Self(
            name: "sendConsumptionInformation",
            path: "/inApps/v2/transactions/consumption/" + encodeSegment(transactionID), method: .put, body: body)
    }

    /// The full URL under `baseURL`, which may end in `/` and may carry a path prefix
    /// (the stub store's sandbox is `http://127.0.0.1:8090/sandbox`).
    /// - Parameter baseURL: The deployment's base URL.
    public func url(baseURL: String) -> String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        var url = String(base) + path
        if !query.isEmpty {
            url += "?" + query.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
        }
        return url
    }

    /// The name and path, such as `getTransactionInfo /inApps/v1/transactions/1`.
    public var description: String { "\(name) \(path)" }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so that an id can
    /// neither leave its path segment (`/`, `..`) nor start a query (`?`, `#`).
    static func encodeSegment(_ value: String) -> String {
        // `.` alone or `..` would be resolved away by a proxy; encode the dots of such a segment.
        if value == "." || value == ".." { return value.replacingOccurrences(of: ".", with: "%2E") }
        return encode(value)
    }

    static func encode(_ value: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}
