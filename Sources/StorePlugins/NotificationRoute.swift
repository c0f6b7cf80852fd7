/// How a store's pushes reach `/v1/<id>/notifications`, and what the store expects back:
/// most stores `POST` a body and read the status; Xiaomi calls with a `GET` and a query string
/// and reads its own JSON (`{"errcode":200}`); Amazon's SNS posts `text/plain`. The intake
/// routes, checks and answers each store's push as its plug-in declares here.
public struct NotificationRoute: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case get = "GET"
        case post = "POST"
    }

    public var method: Method
    /// The media types a push may be sent as (lowercased, without parameters), else `415`;
    /// empty: any, the plug-in judges (a `GET` carries none).
    public var contentTypes: [String]

    public init(method: Method = .post, contentTypes: [String] = []) {
        self.method = method
        self.contentTypes = contentTypes
    }
}

/// What became of one push, for a plug-in that answers its store in the store's own words
/// (``StorePlugin/reply(to:)``).
public enum NotificationOutcome: Sendable, Hashable {
    /// Stored durably, now or by an earlier send of the same notice: its id here.
    case stored(id: String)
    /// A hint about a purchase no app recorded: nothing stored, and nothing to send again.
    case dropped
    /// A message about no purchase that the plug-in took (``InboundNotification/Proof/acknowledgement``):
    /// nothing stored.
    case acknowledged
    /// Refused, or not stored this time: the intake's own status and error code
    /// (`unauthorized` 401, `invalid_field` 400, `rate_limited` 429, `unavailable` 503, …)
    /// and the member at fault, when one is.
    case refused(status: Int, code: String, message: String, field: String? = nil)
}

/// An answer in the store's own words; the status is the intake's unless the store needs
/// another (a `2xx` with an error code in the body is still a refusal to the store).
public struct NotificationReply: Sendable, Hashable {
    public var status: Int
    public var contentType: String
    public var body: String

    public init(status: Int, contentType: String = "application/json", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}
